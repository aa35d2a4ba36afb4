// The ordered steps of one CoderTemplateTest reconcile (reference §3.5): at most the first step that applies
// runs, its status is written at the resourceVersion it was decided from (a conflict aborts: no decision
// persists from a stale object), and the test looks again after its poll, its 429 backoff or its deadline.
import { coderTemplateTestResource } from '../../../generated/clients/codertemplatetest.ts';
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import { nowTime } from '../../runtime/conditions.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { isConflict, isNotFound } from '../../runtime/kube-http.ts';
import { eventTarget } from '../shared/event-target.ts';
import { cleanupStep } from './cleanup.ts';
import { reachCoder } from './coder-access.ts';
import { coderFailureStep, isCoderApiFailure } from './coder-failure.ts';
import { confirmationStep, confirmCreate } from './confirm-create.ts';
import type { TemplateTestContext } from './context.ts';
import { createWorkspace } from './create-workspace.ts';
import { expire } from './expire.ts';
import { pendingPollMs, runningPollMs } from './intervals.ts';
import { cleanupFinalizer, workspaceNameOf } from './names.ts';
import { readinessStep } from './readiness.ts';
import { resolveInputs, type Resolved } from './resolve-inputs.ts';
import { cleanupDone, isFinal, mayHaveWorkspace, nextCleanupStatus, nextTestStatus } from './status.ts';
import { CoderAnswerMismatch, fail, R, wait, WD, type Step } from './step.ts';

const defaultTimeoutSeconds = 900;
/** Every status write happens at the version its decision was made from: a conflict aborts the reconcile. */
const atVersion = { onConflict: 'fail' } as const;
/** Waits that only a person ends (a setting, a template, a version): a Warning Event when they start or change. */
const waitsForUser = new Set<string>([
  R.ControlPlaneNotReady,
  R.OperatorAccessNotReady,
  R.OwnerNotConfigured,
  R.OwnerNotEligible,
  R.TemplateNotFound,
  R.TemplateVersionNotFound,
]);

export async function reconcileTemplateTest(
  ctx: TemplateTestContext,
  request: Request,
  rc: ReconcileContext,
): Promise<ReconcileResult | void> {
  const cached = ctx.caches.tests.get(request.namespace, request.name);
  if (!cached) return;
  // The cache may not show what the previous reconcile wrote a moment ago.
  const test = ctx.writer.current(coderTemplateTestResource, cached);
  try {
    return await reconcileTest(ctx, test, rc);
  } catch (err) {
    // Someone (or the previous reconcile) wrote the object since the cache saw it: the newer version comes
    // through the watch and is decided afresh; nothing was decided from this one.
    if (isConflict(err) || isNotFound(err)) {
      rc.logger.debug({ err: (err as Error).message }, 'the template test changed meanwhile; deciding again from the newer version');
      return;
    }
    throw err;
  }
}

async function reconcileTest(ctx: TemplateTestContext, test: CoderTemplateTest, rc: ReconcileContext): Promise<ReconcileResult | void> {
  const uid = test.metadata.uid!;
  const workspaceName = workspaceNameOf(uid);
  if (test.metadata.deletionTimestamp) return cleanup(ctx, test, rc);
  if ((!isFinal(test.status) || !cleanupDone(test)) && (await ctx.writer.addFinalizer(coderTemplateTestResource, test, cleanupFinalizer)))
    return;
  if (!test.status?.phase) return initialize(ctx, test, workspaceName);
  if (test.status.workspaceName && test.status.workspaceName !== workspaceName) {
    throw new Error(
      `assertion failed: status.workspaceName ${test.status.workspaceName} is not ${workspaceName}, the name of this object's UID`,
    );
  }
  if (isFinal(test.status)) {
    ctx.rateLimits.forget(uid);
    return cleanup(ctx, test, rc);
  }
  const waitMs = ctx.rateLimits.remainingMs(uid, ctx.now().getTime());
  if (waitMs > 0) return { requeueAfterMs: waitMs };
  return run(ctx, test, workspaceName, rc);
}

async function initialize(ctx: TemplateTestContext, test: CoderTemplateTest, workspaceName: string): Promise<void> {
  const step = wait(R.Initializing, 'The controller started the test.', { status: { startTime: nowTime(ctx.now()), workspaceName } });
  await ctx.writer.writeStatus(coderTemplateTestResource, test, nextTestStatus(test, step, ctx.now()), atVersion);
}

function deadlineOf(test: CoderTemplateTest): number {
  return (Date.parse(test.status?.startTime ?? '') || 0) + (test.spec.timeoutSeconds ?? defaultTimeoutSeconds) * 1000;
}

function deadlineExceeded(test: CoderTemplateTest, last: { reason?: string; message?: string }): Step {
  const seconds = test.spec.timeoutSeconds ?? defaultTimeoutSeconds;
  return fail(R.DeadlineExceeded, `The test did not finish within ${seconds}s. Last wait: ${last.reason ?? 'none'}: ${last.message ?? ''}`);
}

/** Steps 6–13 of the reference for a test that is not final. */
async function run(
  ctx: TemplateTestContext,
  test: CoderTemplateTest,
  workspaceName: string,
  rc: ReconcileContext,
): Promise<ReconcileResult | void> {
  const cp = ctx.caches.controlPlanes.get(test.metadata.namespace, test.spec.controlPlaneRef.name);
  if (mayHaveWorkspace(test.status) && (!cp || cp.metadata.deletionTimestamp)) {
    return apply(
      ctx,
      test,
      fail(
        R.ControlPlaneGone,
        `CoderControlPlane "${test.spec.controlPlaneRef.name}" was deleted while a workspace of the test could exist.`,
        {
          workspaceDeleted: {
            status: 'Unknown',
            reason: WD.ControlPlaneGone,
            message: 'The control plane is gone, so the workspace cannot be deleted; delete it in Coder.',
          },
        },
      ),
      rc,
    );
  }
  const deadline = deadlineOf(test);
  if (ctx.now().getTime() >= deadline) return apply(ctx, test, deadlineExceeded(test, test.status ?? {}), rc);

  const access = reachCoder(ctx, test);
  if (!access.ok) return apply(ctx, test, access.step, rc);
  const client = access.client;
  let step = await decide(rc, async () => {
    const s = test.status!;
    if (s.workspaceID) return readinessStep(client, test, ctx.now(), rc.signal);
    if (s.createAttemptTime) return confirmationStep(await confirmCreate(client, test, ctx.now(), rc.signal));
    return resolveInputs(client, test, access.controlPlane, workspaceName, rc.signal);
  });
  if (step.kind !== 'resolved' && step.kind === 'wait' && ctx.now().getTime() >= deadline) step = deadlineExceeded(test, step);
  if (step.kind !== 'resolved') return apply(ctx, test, step, rc);

  // Every input is pinned: store the create marker first; only then may the request go out.
  const marker = wait(R.CreatingWorkspace, `The controller is creating workspace ${workspaceName}.`, {
    status: { ...step.status, createAttemptTime: nowTime(ctx.now()) },
  });
  const { object: marked } = await ctx.writer.writeStatus(
    coderTemplateTestResource,
    test,
    nextTestStatus(test, marker, ctx.now()),
    atVersion,
  );
  if (ctx.now().getTime() >= deadline) {
    return apply(ctx, marked, deadlineExceeded(test, { reason: R.CreatingWorkspace }), rc, { createAttemptTime: undefined });
  }
  let created = await decide(rc, () => createWorkspace(client, marked, rc.signal));
  if (created.kind === 'wait' && ctx.now().getTime() >= deadline) created = deadlineExceeded(test, created);
  return apply(ctx, marked, created, rc);
}

/** Runs a step's Coder calls; a failed call or a wrong answer becomes a named wait that the deadline ends. */
async function decide<T extends Step | Resolved>(rc: ReconcileContext, step: () => Promise<T>): Promise<T | Step> {
  try {
    return await step();
  } catch (err) {
    if (rc.signal.aborted) throw err;
    if (err instanceof CoderAnswerMismatch) {
      rc.logger.error({ err: err.message }, 'Coder answered about another object than the one asked for');
      return wait(R.CoderAnswerMismatch, err.message);
    }
    if (isCoderApiFailure(err)) return coderFailureStep(err);
    throw err;
  }
}

/** Writes the step's status at the version it was decided from, records the Event of a result, and says when to look again. */
async function apply(
  ctx: TemplateTestContext,
  test: CoderTemplateTest,
  step: Step,
  rc: ReconcileContext,
  extra: Partial<NonNullable<CoderTemplateTest['status']>> = {},
): Promise<ReconcileResult | void> {
  const uid = test.metadata.uid!;
  const now = ctx.now();
  const withExtra: Step = { ...step, status: { ...step.status, ...extra } } as Step;
  await ctx.writer.writeStatus(coderTemplateTestResource, test, nextTestStatus(test, withExtra, now), atVersion);
  if (step.kind === 'wait' && step.rateLimited) {
    const delay = ctx.rateLimits.limited(uid, now.getTime(), ctx.random);
    rc.logger.info({ attempt: ctx.rateLimits.count(uid), delayMs: delay }, 'Coder answered 429; the test backs off');
    return { requeueAfterMs: Math.min(delay, Math.max(deadlineOf(test) - now.getTime(), 1)) };
  }
  ctx.rateLimits.forget(uid);
  if (step.kind === 'fail') {
    await ctx.events.record(eventTarget(test), 'Warning', step.reason, 'RunTest', step.eventNote ?? step.message);
    return;
  }
  if (step.kind === 'succeed') {
    await ctx.events.record(eventTarget(test), 'Normal', R.Succeeded, 'RunTest', step.message);
    return;
  }
  if (waitsForUser.has(step.reason) && (test.status?.reason !== step.reason || test.status?.message !== step.message)) {
    await ctx.events.record(eventTarget(test), 'Warning', step.reason, 'RunTest', step.message);
  }
  const merged = { ...test.status, ...withExtra.status };
  const poll = step.pollMs ?? (mayHaveWorkspace(merged) ? runningPollMs : pendingPollMs);
  return { requeueAfterMs: Math.max(1, Math.min(poll, deadlineOf(test) - now.getTime())) };
}

/** Cleanup of a final or deleted test; the finalizer goes once nothing of it can be left in Coder, then the TTL. */
async function cleanup(ctx: TemplateTestContext, test: CoderTemplateTest, rc: ReconcileContext): Promise<ReconcileResult | void> {
  if (cleanupDone(test)) {
    // Nothing more is sent to Coder for this object: its memories go, so none lingers after it.
    ctx.rateLimits.forget(test.metadata.uid!);
    ctx.cleanupPauses.forget(test.metadata.uid!);
    await ctx.writer.removeFinalizer(coderTemplateTestResource, test, cleanupFinalizer);
    return expire(ctx, test);
  }
  if (!test.metadata.finalizers?.includes(cleanupFinalizer)) return;
  const uid = test.metadata.uid!;
  const paused = ctx.cleanupPauses.remainingMs(uid, ctx.now().getTime());
  if (paused > 0) return { requeueAfterMs: paused };
  const step = await cleanupStep(ctx, test, rc.signal);
  await ctx.writer.writeStatus(
    coderTemplateTestResource,
    test,
    nextCleanupStatus(test, step.deleted, step.status ?? {}, ctx.now()),
    atVersion,
  );
  if ((step.deleted.reason === WD.ControlPlaneUnavailable || step.deleted.reason === WD.EndpointNotFound) && step.requeueAfterMs)
    ctx.cleanupPauses.pause(uid, ctx.now().getTime(), step.requeueAfterMs);
  else ctx.cleanupPauses.forget(uid);
  return step.requeueAfterMs ? { requeueAfterMs: step.requeueAfterMs } : undefined;
}
