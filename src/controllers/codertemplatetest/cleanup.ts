// Cleanup of a template test: once it is final, or when it is deleted, its workspace goes
// (or is retained when the control plane allows it). Cleanup has no deadline and changes only
// WorkspaceDeleted; the finalizer stays until nothing of the test can be left in Coder. While Coder is
// unavailable (or serves no such call), cleanup calls it again only after 60 s, whatever event comes first.
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import { isRouteNotServed } from '../../coder/error-predicates.ts';
import { routeNotServedMessage } from '../../coder/errors.ts';
import { isCoderApiFailure } from './coder-failure.ts';
import { reachCoder } from './coder-access.ts';
import { confirmCreate } from './confirm-create.ts';
import type { TemplateTestContext } from './context.ts';
import { deleteWorkspaceStep } from './delete-workspace.ts';
import { cleanupDeletingPollMs, cleanupUnavailablePollMs } from './intervals.ts';
import { deletionPolicyAnnotation } from './names.ts';
import { mayHaveWorkspace, workspaceDeletedChange, workspaceDeletedCondition, type TestOutcome } from './status.ts';
import { CoderAnswerMismatch, WD, type TestStatus, type WorkspaceDeletedState } from './step.ts';

export interface CleanupStep {
  deleted: WorkspaceDeletedState;
  status?: Partial<TestStatus>;
  requeueAfterMs?: number;
}

/** What the deletion-policy annotation asks, and the note when the controller does not follow it. */
function deletionPolicy(test: CoderTemplateTest, allowRetain: boolean): { retain: boolean; note: string } {
  const value = test.metadata.annotations?.[deletionPolicyAnnotation];
  if (value === undefined || value === '' || value === 'delete') return { retain: false, note: '' };
  if (value === 'retain') {
    return allowRetain
      ? { retain: true, note: '' }
      : {
          retain: false,
          note: ` The controller ignores ${deletionPolicyAnnotation}=retain: spec.templateTests.allowRetain of the control plane is not true.`,
        };
  }
  return { retain: false, note: ` The controller ignores ${deletionPolicyAnnotation} value "${value.slice(0, 40)}".` };
}

const unavailable = (message: string): CleanupStep => ({
  deleted: { status: 'False', reason: WD.ControlPlaneUnavailable, message },
  requeueAfterMs: cleanupUnavailablePollMs,
});

export async function cleanupStep(ctx: TemplateTestContext, test: CoderTemplateTest, signal: AbortSignal): Promise<CleanupStep> {
  const cp = ctx.caches.controlPlanes.get(test.metadata.namespace, test.spec.controlPlaneRef.name);
  const policy = deletionPolicy(test, cp?.spec?.templateTests?.allowRetain === true);
  if (policy.retain) {
    return {
      deleted: {
        status: 'False',
        reason: WD.Retained,
        message: `The annotation ${deletionPolicyAnnotation}=retain keeps the workspace in Coder.`,
      },
    };
  }
  if (!mayHaveWorkspace(test.status)) {
    return { deleted: { status: 'True', reason: WD.NotCreated, message: 'The controller never sent a workspace create request.' } };
  }
  if (!cp || cp.metadata.deletionTimestamp) {
    return {
      deleted: {
        status: 'Unknown',
        reason: WD.ControlPlaneGone,
        message: `CoderControlPlane "${test.spec.controlPlaneRef.name}" is gone, so the workspace cannot be deleted; delete it in Coder.`,
      },
    };
  }
  const current = workspaceDeletedCondition(test.status);
  if (current?.reason === WD.OwnershipUnknown) {
    return { deleted: { status: 'Unknown', reason: WD.OwnershipUnknown, message: current.message } };
  }
  const access = reachCoder(ctx, test);
  if (!access.ok) return unavailable(`${access.step.message}${policy.note}`);
  try {
    let target = test;
    let adopted: Partial<TestStatus> = {};
    if (!test.status?.workspaceID) {
      const c = await confirmCreate(access.client, test, ctx.now(), signal);
      if (c.found === 'none' && !c.settled) {
        return {
          deleted: {
            status: 'Unknown',
            reason: WD.CreateOutcomeUnknown,
            message: 'The controller is still reading Coder to learn whether the create made a workspace.',
          },
          requeueAfterMs: cleanupDeletingPollMs,
        };
      }
      if (c.found === 'foreign') {
        return {
          deleted: {
            status: 'Unknown',
            reason: WD.OwnershipUnknown,
            message: "A live workspace with the test name cannot be proven to be this test's; it is never touched.",
          },
        };
      }
      if (c.found !== 'live')
        return {
          deleted: {
            status: 'True',
            reason: c.found === 'deleted' ? WD.DeletedExternally : WD.NotCreated,
            message: 'No workspace of this test exists.',
          },
        };
      adopted = { workspaceID: c.workspaceID, startBuildID: c.startBuildID };
      target = { ...test, status: { ...test.status, ...adopted } };
    }
    const outcome = await deleteWorkspaceStep(access.client, target, ctx.now(), signal);
    const status = { ...adopted, ...outcome.status };
    if (outcome.state === 'deleted')
      return {
        deleted: { status: 'True', reason: WD.Deleted, message: `Workspace ${test.status?.workspaceName} is deleted.${policy.note}` },
        status,
      };
    if (outcome.state === 'deleting') {
      return {
        deleted: { status: 'False', reason: WD.Deleting, message: `${outcome.message}${policy.note}` },
        status,
        requeueAfterMs: cleanupDeletingPollMs,
      };
    }
    return {
      deleted: { status: 'False', reason: WD.DeleteRetrying, message: `${outcome.message}${policy.note}` },
      status,
      requeueAfterMs: outcome.retryInMs,
    };
  } catch (err) {
    if (err instanceof CoderAnswerMismatch) {
      return { deleted: { status: 'False', reason: WD.CoderAnswerMismatch, message: err.message }, requeueAfterMs: cleanupDeletingPollMs };
    }
    if (isRouteNotServed(err) && !signal.aborted) {
      return {
        deleted: {
          status: 'False',
          reason: WD.EndpointNotFound,
          message: `${routeNotServedMessage(err)}, so the operator cannot delete workspace ${test.status?.workspaceName}: delete it in Coder, or upgrade Coder.`,
        },
        requeueAfterMs: cleanupUnavailablePollMs,
      };
    }
    if (isCoderApiFailure(err) && !signal.aborted)
      return unavailable(`Coder could not be reached to delete the workspace: ${(err as Error).message}`);
    throw err;
  }
}

/** One cleanup pass as an outcome: nothing while a pause lasts, else the cleanup step, which may start the next pause. */
export async function cleanupOutcome(ctx: TemplateTestContext, test: CoderTemplateTest, signal: AbortSignal): Promise<TestOutcome> {
  const uid = test.metadata.uid!;
  const paused = ctx.cleanupPauses.remainingMs(uid, ctx.now().getTime());
  if (paused > 0) return { requeueAfterMs: paused };
  const step = await cleanupStep(ctx, test, signal);
  if ((step.deleted.reason === WD.ControlPlaneUnavailable || step.deleted.reason === WD.EndpointNotFound) && step.requeueAfterMs)
    ctx.cleanupPauses.pause(uid, ctx.now().getTime(), step.requeueAfterMs);
  else ctx.cleanupPauses.forget(uid);
  return { conditions: workspaceDeletedChange(step.deleted), status: step.status ?? {}, requeueAfterMs: step.requeueAfterMs };
}

/** Nothing more is sent to Coder for this test: its memories go, so none lingers after it. */
export function forgetTest(ctx: TemplateTestContext, test: CoderTemplateTest): void {
  ctx.rateLimits.forget(test.metadata.uid!);
  ctx.cleanupPauses.forget(test.metadata.uid!);
}
