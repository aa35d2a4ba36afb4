// The status of a template test: what a step makes of it (phase, reason, message, completionTime, the pins,
// WorkspaceDeleted, and Ready, Reconciling and Stalled by the ready rule) and what a cleanup step makes of
// it (WorkspaceDeleted and the delete fields only).
import {
  CoderTemplateTestConditions as C,
  type CoderTemplateTest,
  type CoderTemplateTestConditionChanges,
} from '../../../generated/types/codertemplatetest.ts';
import type { Condition } from '../../runtime/conditions.ts';
import { findCondition, nowTime } from '../../runtime/conditions.ts';
import { truncateUtf8 } from '../../runtime/events.ts';
import { Outcomes, type StepOutcome } from '../shared/reconcile/outcome.ts';
import type { ReadyRuleOf } from '../shared/reconcile/readiness.ts';
import { nextConditions, nextStatus } from '../shared/reconcile/status.ts';
import { deletionPolicyAnnotation } from './names.ts';
import { R, WD, type Step, type TestStatus, type WorkspaceDeletedState } from './step.ts';

const maxMessageBytes = 256;

/**
 * A step's outcome. Its stop may give Ready any reason: a reconcile that decides nothing about the result repeats
 * the reason the status records (recordedReadiness), which the API server keeps as a string; every other stop
 * gives the reason of a Step, which its type keeps to Ready's.
 */
export type TestOutcome = StepOutcome<TestStatus, CoderTemplateTestConditionChanges, string>;

/**
 * Only the steps know where a test stands, so Ready waits for no condition: a wait or a failure stops with
 * its own reason (a failure waits for the user: Stalled True), a pass is Ready with its own message. Stalled
 * is False rather than absent while the test runs, and Reconciling True until it is final.
 */
export const templateTestReadyRule: ReadyRuleOf<CoderTemplateTestConditionChanges> = {
  requirements: [],
  readyReason: R.Succeeded,
  readyMessage: 'The test succeeded.',
  stalledWhenClear: 'False',
  reconciling: true,
};

export function isFinal(status: TestStatus | undefined): boolean {
  return status?.phase === 'Succeeded' || status?.phase === 'Failed';
}

/** A create request may have been sent, so a workspace of this test may exist. */
export function mayHaveWorkspace(status: TestStatus | undefined): boolean {
  return Boolean(status?.createAttemptTime || status?.workspaceID);
}

export function workspaceDeletedCondition(status: TestStatus | undefined): Condition | undefined {
  return findCondition(status?.conditions as Condition[] | undefined, C.WorkspaceDeleted.type);
}

export function retainRequested(test: CoderTemplateTest): boolean {
  return test.metadata.annotations?.[deletionPolicyAnnotation] === 'retain';
}

/** Nothing is left to delete, or nothing may be: the finalizer can go. */
export function cleanupDone(test: CoderTemplateTest): boolean {
  const deleted = workspaceDeletedCondition(test.status);
  if (!mayHaveWorkspace(test.status)) return true;
  if (deleted?.status === 'True') return true;
  if (deleted?.reason === WD.ControlPlaneGone) return true;
  return deleted?.reason === WD.Retained && retainRequested(test);
}

function message(text: string): string {
  return truncateUtf8(text, maxMessageBytes);
}

export function workspaceDeletedChange(deleted: WorkspaceDeletedState): CoderTemplateTestConditionChanges {
  const type = C.WorkspaceDeleted.type;
  return { [type]: { type, status: deleted.status, reason: deleted.reason, message: message(deleted.message) } };
}

function finalWorkspaceDeleted(step: Step, status: TestStatus): WorkspaceDeletedState {
  if (step.kind === 'succeed') return { status: 'True', reason: WD.Deleted, message: 'The workspace of the test is deleted.' };
  if (step.kind === 'fail' && step.workspaceDeleted) return step.workspaceDeleted;
  return mayHaveWorkspace(status)
    ? { status: 'False', reason: WD.CleanupPending, message: 'The workspace can exist. The controller deletes it.' }
    : { status: 'True', reason: WD.NotCreated, message: 'The controller never sent a workspace create request.' };
}

/** Ready as a step of this kind leaves it (the ready rule makes Reconciling and Stalled of it). */
function readiness(kind: Step['kind'], reason: string, text: string): TestOutcome {
  return kind === 'succeed' ? { readyMessage: text } : { stop: { reason, message: text, userMustAct: kind === 'fail' } };
}

/** What `step` makes of the status: pins merged in, the phase by the create rule, the result for kstatus, Argo CD and Flux. */
export function stepOutcome(test: CoderTemplateTest, step: Step, now: Date): TestOutcome {
  const merged: TestStatus = { ...test.status, ...step.status };
  const final = step.kind !== 'wait';
  const phase = step.kind === 'succeed' ? 'Succeeded' : step.kind === 'fail' ? 'Failed' : mayHaveWorkspace(merged) ? 'Running' : 'Pending';
  const reason = step.kind === 'succeed' ? R.Succeeded : step.reason;
  return {
    status: { ...step.status, phase, reason, message: message(step.message), ...(final ? { completionTime: nowTime(now) } : {}) },
    ...(final ? { conditions: workspaceDeletedChange(finalWorkspaceDeleted(step, merged)) } : {}),
    ...readiness(step.kind, reason, message(step.message)),
  };
}

/** Ready, Reconciling and Stalled as the status records them: for a reconcile that decides nothing about the result. */
export function recordedReadiness(status: TestStatus): TestOutcome {
  const kind = status.phase === 'Succeeded' ? 'succeed' : status.phase === 'Failed' ? 'fail' : 'wait';
  return readiness(kind, status.reason ?? '', status.message ?? '');
}

/** The status after `step` alone, as the create marker is written before the create request goes out. */
export function nextTestStatus(test: CoderTemplateTest, step: Step, now: Date): TestStatus {
  return nextStatus(
    test,
    new Outcomes<TestStatus, CoderTemplateTestConditionChanges, string>().add(stepOutcome(test, step, now)),
    templateTestReadyRule,
    now,
  );
}

/**
 * The status of a deleted test after a cleanup step: WorkspaceDeleted and the delete fields, never the phase,
 * the result or observedGeneration (the deletion raised the generation; the result describes the one before).
 */
export function nextCleanupStatus(test: CoderTemplateTest, cleanup: TestOutcome, now: Date): TestStatus {
  const merged: TestStatus = { ...test.status, ...cleanup.status };
  return { ...merged, conditions: nextConditions({ metadata: test.metadata, status: merged }, cleanup.conditions ?? {}, now) };
}
