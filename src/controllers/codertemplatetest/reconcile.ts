// The ordered steps of one CoderTemplateTest reconcile, run by the shared skeleton
// (shared/reconcile/kind.ts): at most the first step that applies runs, its status is written at the
// resourceVersion it was decided from (a conflict ends the reconcile: no decision persists from a stale
// object), and the test looks again after its poll, its 429 backoff or its deadline. A final test is cleaned
// up and then expires; a deleted one is cleaned up before its finalizer goes.
import { coderTemplateTestResource } from '../../../generated/clients/codertemplatetest.ts';
import type { CoderTemplateTest, CoderTemplateTestConditionChanges } from '../../../generated/types/codertemplatetest.ts';
import { nowTime } from '../../runtime/conditions.ts';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.ts';
import { isConflict, isNotFound } from '../../runtime/kube-http.ts';
import type { Kind } from '../shared/reconcile/kind.ts';
import type { Outcomes } from '../shared/reconcile/outcome.ts';
import { cleanupOutcome, forgetTest } from './cleanup.ts';
import { reachCoder, type CoderAccess } from './coder-access.ts';
import { coderFailureStep, isCoderApiFailure } from './coder-failure.ts';
import { confirmationStep, confirmCreate } from './confirm-create.ts';
import type { TemplateTestContext } from './context.ts';
import { createWorkspace } from './create-workspace.ts';
import { deadlineExceeded, deadlineOf } from './deadline.ts';
import { decisionOutcome } from './decision.ts';
import { expire } from './expire.ts';
import { cleanupFinalizer, workspaceNameOf } from './names.ts';
import { readinessStep } from './readiness.ts';
import { resolveInputs, type Resolved } from './resolve-inputs.ts';
import {
  cleanupDone,
  isFinal,
  mayHaveWorkspace,
  nextCleanupStatus,
  nextTestStatus,
  recordedReadiness,
  stepOutcome,
  templateTestReadyRule,
  type TestOutcome,
} from './status.ts';
import { CoderAnswerMismatch, fail, R, wait, WD, type Step, type TestStatus } from './step.ts';

type Out = Outcomes<TestStatus, CoderTemplateTestConditionChanges, string>;

/** Every status write happens at the version its decision was made from. */
const atVersion = { onConflict: 'fail' } as const;

// Ready repeats the recorded reason in a reconcile that decides nothing about the result (TestOutcome).
export const templateTestKind: Kind<CoderTemplateTest, TemplateTestContext, CoderTemplateTestConditionChanges, string> = {
  resource: coderTemplateTestResource,
  cached: (ctx, request) => ctx.caches.tests.get(request.namespace, request.name),
  readyRule: templateTestReadyRule,
  finalize,
  // Held until nothing of the test can be left in Coder.
  finalizer: (test) => ({ name: cleanupFinalizer, needed: !isFinal(test.status) || !cleanupDone(test) }),
  steps,
  // The create marker is written at the version the steps decided from, like the status: written (or deleted)
  // since, the newer version comes through the watch and is decided afresh.
  stepFailure: async (_ctx, _test, err) => (isConflict(err) || isNotFound(err) ? 'end' : undefined),
  // A template test's Events are its steps' own: a result, or a wait that only a person ends (decision.ts).
  warnings: {},
  statusConflicts: 'fail',
  statusWritten: (ctx, before, written) => {
    // Written at the version it was decided from, so a result is counted once.
    if (isFinal(before.status) || !isFinal(written.status)) return;
    ctx.metrics?.templateTestResults.inc({ result: written.status!.phase!, reason: written.status!.reason ?? '' });
  },
};

async function steps(ctx: TemplateTestContext, test: CoderTemplateTest, out: Out, rc: ReconcileContext): Promise<void> {
  const workspaceName = workspaceNameOf(test.metadata.uid);
  if (!test.status?.phase) {
    out.add(initialize(ctx, test, workspaceName));
    return;
  }
  if (test.status.workspaceName && test.status.workspaceName !== workspaceName) {
    throw new Error(
      `assertion failed: status.workspaceName ${test.status.workspaceName} is not ${workspaceName}, the name of this object's UID`,
    );
  }
  if (isFinal(test.status)) {
    out.add(await cleanUpFinal(ctx, test, rc));
    return;
  }
  // A 429 backoff that has not run out: nothing goes to Coder, and the result stays as it is.
  const backoffMs = ctx.rateLimits.remainingMs(test.metadata.uid!, ctx.now().getTime());
  if (backoffMs > 0) {
    out.add({ ...recordedReadiness(test.status), requeueAfterMs: backoffMs });
    return;
  }
  await run(ctx, test, workspaceName, out, rc);
}

function initialize(ctx: TemplateTestContext, test: CoderTemplateTest, workspaceName: string): TestOutcome {
  const started = wait(R.Initializing, 'The controller started the test.', { status: { startTime: nowTime(ctx.now()), workspaceName } });
  return stepOutcome(test, started, ctx.now());
}

/** The steps of a test that is not final: the first that applies decides. */
async function run(
  ctx: TemplateTestContext,
  test: CoderTemplateTest,
  workspaceName: string,
  out: Out,
  rc: ReconcileContext,
): Promise<void> {
  const decide = async (on: CoderTemplateTest, step: Step): Promise<void> => {
    out.add(await decisionOutcome(ctx, on, step, rc));
  };
  const deadline = deadlineOf(test);
  const gone = controlPlaneGone(ctx, test);
  if (gone) return decide(test, gone);
  if (ctx.now().getTime() >= deadline) return decide(test, deadlineExceeded(test, test.status ?? {}));

  const access = reachCoder(ctx, test);
  if (!access.ok) return decide(test, access.step);
  let step = await coderStep(rc, () => nextCoderStep(ctx, test, access, workspaceName, rc.signal));
  if (step.kind === 'wait' && ctx.now().getTime() >= deadline) step = deadlineExceeded(test, step);
  if (step.kind !== 'resolved') return decide(test, step);

  // Every input is pinned: store the create marker first; only then may the request go out.
  const marked = await writeCreateMarker(ctx, test, step, workspaceName, out);
  if (ctx.now().getTime() >= deadline) {
    return decide(marked, deadlineExceeded(test, { reason: R.CreatingWorkspace }, { createAttemptTime: undefined }));
  }
  let created = await coderStep(rc, () => createWorkspace(access.client, marked, rc.signal));
  if (created.kind === 'wait' && ctx.now().getTime() >= deadline) created = deadlineExceeded(test, created);
  return decide(marked, created);
}

/**
 * Writes the create marker (status.createAttemptTime) with the pinned inputs, at the version the steps decided
 * from, and returns the marked object; the status written at the end goes on from it and keeps the pins.
 */
async function writeCreateMarker(
  ctx: TemplateTestContext,
  test: CoderTemplateTest,
  resolved: Resolved,
  workspaceName: string,
  out: Out,
): Promise<CoderTemplateTest> {
  const marker = wait(R.CreatingWorkspace, `The controller is creating workspace ${workspaceName}.`, {
    status: { ...resolved.status, createAttemptTime: nowTime(ctx.now()) },
  });
  const { object } = await ctx.writer.writeStatus(coderTemplateTestResource, test, nextTestStatus(test, marker, ctx.now()), atVersion);
  out.add({ status: marker.status });
  return object;
}

/** The control plane went while a workspace of the test could exist: nothing can reach it any more. */
function controlPlaneGone(ctx: TemplateTestContext, test: CoderTemplateTest): Step | undefined {
  const cp = ctx.caches.controlPlanes.get(test.metadata.namespace, test.spec.controlPlaneRef.name);
  if (!mayHaveWorkspace(test.status) || (cp && !cp.metadata.deletionTimestamp)) return undefined;
  return fail(
    R.ControlPlaneGone,
    `CoderControlPlane "${test.spec.controlPlaneRef.name}" was deleted while a workspace of the test could exist.`,
    {
      workspaceDeleted: {
        status: 'Unknown',
        reason: WD.ControlPlaneGone,
        message: 'The control plane is gone, so the workspace cannot be deleted; delete it in Coder.',
      },
    },
  );
}

/** Where the test stands in Coder: its workspace's readiness, the confirmation of an uncertain create, or its inputs. */
async function nextCoderStep(
  ctx: TemplateTestContext,
  test: CoderTemplateTest,
  access: Extract<CoderAccess, { ok: true }>,
  workspaceName: string,
  signal: AbortSignal,
): Promise<Step | Resolved> {
  const s = test.status!;
  if (s.workspaceID) return readinessStep(access.client, test, ctx.now(), signal);
  if (s.createAttemptTime) return confirmationStep(await confirmCreate(access.client, test, ctx.now(), signal));
  return resolveInputs(access.client, test, access.controlPlane, workspaceName, signal);
}

/** Runs a step's Coder calls; a failed call or a wrong answer becomes a named wait that the deadline ends. */
async function coderStep<T extends Step | Resolved>(rc: ReconcileContext, step: () => Promise<T>): Promise<T | Step> {
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

/** A final test: its workspace is cleaned up while the result stays as it is; once nothing is left, the TTL runs. */
async function cleanUpFinal(ctx: TemplateTestContext, test: CoderTemplateTest, rc: ReconcileContext): Promise<TestOutcome> {
  ctx.rateLimits.forget(test.metadata.uid!);
  const result = recordedReadiness(test.status!);
  if (!cleanupDone(test)) return { ...(await cleanupOutcome(ctx, test, rc.signal)), ...result };
  forgetTest(ctx, test);
  return { ...(await expire(ctx, test)), ...result };
}

/** Deletion: the workspace's cleanup, then the finalizer, once nothing of the test can be left in Coder. */
async function finalize(ctx: TemplateTestContext, test: CoderTemplateTest, rc: ReconcileContext): Promise<ReconcileResult | void> {
  try {
    if (cleanupDone(test)) {
      forgetTest(ctx, test);
      await ctx.writer.removeFinalizer(coderTemplateTestResource, test, cleanupFinalizer);
      return;
    }
    if (!test.metadata.finalizers?.includes(cleanupFinalizer)) return;
    const cleanup = await cleanupOutcome(ctx, test, rc.signal);
    await ctx.writer.writeStatus(coderTemplateTestResource, test, nextCleanupStatus(test, cleanup, ctx.now()), atVersion);
    return cleanup.requeueAfterMs ? { requeueAfterMs: cleanup.requeueAfterMs } : undefined;
  } catch (err) {
    if (!(isConflict(err) || isNotFound(err))) throw err;
    // Written (or deleted) since it was read: the newer version comes through the watch and is decided afresh.
    rc.logger.debug({ err: (err as Error).message }, 'the template test changed meanwhile; deciding again from the newer version');
  }
}
