// A template test's deadline (spec.timeoutSeconds from status.startTime): a wait that reaches
// it fails DeadlineExceeded, naming the last wait (the agent it waited for, by name and last state).
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import { agentDeadlineMessage } from './agent-state.ts';
import { fail, R, type Step, type TestStatus } from './step.ts';

const defaultTimeoutSeconds = 900;

export function deadlineOf(test: CoderTemplateTest): number {
  return (Date.parse(test.status?.startTime ?? '') || 0) + (test.spec.timeoutSeconds ?? defaultTimeoutSeconds) * 1000;
}

export function deadlineExceeded(test: CoderTemplateTest, last: { reason?: string; message?: string }, status?: Partial<TestStatus>): Step {
  const within = `within spec.timeoutSeconds (${test.spec.timeoutSeconds ?? defaultTimeoutSeconds}s)`;
  const agent = last.reason === R.WaitingForAgents ? agentDeadlineMessage(last.message ?? '', within) : undefined;
  return fail(
    R.DeadlineExceeded,
    agent ?? `The test did not finish ${within}. Last wait: ${last.reason ?? 'none'}: ${last.message ?? ''}`,
    {
      ...(status ? { status } : {}),
    },
  );
}
