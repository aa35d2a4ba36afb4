// What a running test's decided step adds to the reconcile besides its status (status.ts stepOutcome): the
// Event of a result or of a wait that only a person ends, the per-object 429 backoff, and when to look again.
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { TemplateTestContext } from './context.ts';
import { deadlineOf } from './deadline.ts';
import { pendingPollMs, runningPollMs } from './intervals.ts';
import { mayHaveWorkspace, stepOutcome, type TestOutcome } from './status.ts';
import { R, type Step } from './step.ts';

/** Waits that only a person ends (a setting, a template, a version): a Warning Event when they start or change. */
const waitsForUser = new Set<string>([
  R.ControlPlaneNotReady,
  R.OperatorAccessNotReady,
  R.OwnerNotConfigured,
  R.OwnerNotEligible,
  R.TemplateNotFound,
  R.TemplateVersionNotFound,
]);

export async function decisionOutcome(
  ctx: TemplateTestContext,
  test: CoderTemplateTest,
  step: Step,
  rc: ReconcileContext,
): Promise<TestOutcome> {
  const uid = test.metadata.uid!;
  const now = ctx.now();
  const outcome = stepOutcome(test, step, now);
  if (step.kind === 'wait' && step.rateLimited) {
    const delay = ctx.rateLimits.limited(uid, now.getTime(), ctx.random);
    rc.logger.info({ attempt: ctx.rateLimits.count(uid), delayMs: delay }, 'Coder answered 429; the test backs off');
    return { ...outcome, requeueAfterMs: Math.min(delay, Math.max(deadlineOf(test) - now.getTime(), 1)) };
  }
  ctx.rateLimits.forget(uid);
  if (step.kind === 'fail') {
    await ctx.events.record(eventTarget(test), 'Warning', step.reason, 'RunTest', step.eventNote ?? step.message);
    return outcome;
  }
  if (step.kind === 'succeed') {
    await ctx.events.record(eventTarget(test), 'Normal', R.Succeeded, 'RunTest', step.message);
    return outcome;
  }
  if (waitsForUser.has(step.reason) && (test.status?.reason !== step.reason || test.status?.message !== step.message)) {
    await ctx.events.record(eventTarget(test), 'Warning', step.reason, 'RunTest', step.message);
  }
  const poll = step.pollMs ?? (mayHaveWorkspace({ ...test.status, ...step.status }) ? runningPollMs : pendingPollMs);
  return { ...outcome, requeueAfterMs: Math.max(1, Math.min(poll, deadlineOf(test) - now.getTime())) };
}
