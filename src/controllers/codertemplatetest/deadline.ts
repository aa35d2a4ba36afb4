// A template test's deadline (spec.timeoutSeconds from status.startTime): a wait that reaches
// it fails DeadlineExceeded, naming the last wait.
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import { fail, R, type Step, type TestStatus } from './step.ts';

const defaultTimeoutSeconds = 900;

export function deadlineOf(test: CoderTemplateTest): number {
  return (Date.parse(test.status?.startTime ?? '') || 0) + (test.spec.timeoutSeconds ?? defaultTimeoutSeconds) * 1000;
}

export function deadlineExceeded(test: CoderTemplateTest, last: { reason?: string; message?: string }, status?: Partial<TestStatus>): Step {
  const seconds = test.spec.timeoutSeconds ?? defaultTimeoutSeconds;
  return fail(
    R.DeadlineExceeded,
    `The test did not finish within ${seconds}s. Last wait: ${last.reason ?? 'none'}: ${last.message ?? ''}`,
    {
      ...(status ? { status } : {}),
    },
  );
}
