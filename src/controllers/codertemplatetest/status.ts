// The status of a template test: the next one after a step (phase, reason, message, Ready, Reconciling,
// Stalled, WorkspaceDeleted) and after a cleanup step (WorkspaceDeleted and the delete fields only).
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { Condition, ConditionInput } from '../../runtime/conditions.ts';
import { findCondition, nowTime } from '../../runtime/conditions.ts';
import { truncateUtf8 } from '../../runtime/events.ts';
import { nextConditions } from '../shared/step-outcome.ts';
import { deletionPolicyAnnotation } from './names.ts';
import { R, WD, type Step, type TestStatus, type WorkspaceDeletedState } from './step.ts';

const maxMessageBytes = 256;

export function isFinal(status: TestStatus | undefined): boolean {
  return status?.phase === 'Succeeded' || status?.phase === 'Failed';
}

/** A create request may have been sent, so a workspace of this test may exist. */
export function mayHaveWorkspace(status: TestStatus | undefined): boolean {
  return Boolean(status?.createAttemptTime || status?.workspaceID);
}

export function workspaceDeletedCondition(status: TestStatus | undefined): Condition | undefined {
  return findCondition(status?.conditions as Condition[] | undefined, 'WorkspaceDeleted');
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

function condition(type: string, status: ConditionInput['status'], reason: string, text: string): ConditionInput {
  return { type, status, reason, message: message(text) };
}

function finalWorkspaceDeleted(step: Step, status: TestStatus): WorkspaceDeletedState {
  if (step.kind === 'succeed') return { status: 'True', reason: WD.Deleted, message: 'The workspace of the test is deleted.' };
  if (step.kind === 'fail' && step.workspaceDeleted) return step.workspaceDeleted;
  return mayHaveWorkspace(status)
    ? { status: 'False', reason: WD.CleanupPending, message: 'The workspace can exist. The controller deletes it.' }
    : { status: 'True', reason: WD.NotCreated, message: 'The controller never sent a workspace create request.' };
}

/** The status after `step`: pins merged in, phase by the create rule, conditions for kstatus, Argo CD and Flux. */
export function nextTestStatus(test: CoderTemplateTest, step: Step, now: Date): TestStatus {
  const merged: TestStatus = { ...test.status, ...step.status };
  const final = step.kind !== 'wait';
  const phase = step.kind === 'succeed' ? 'Succeeded' : step.kind === 'fail' ? 'Failed' : mayHaveWorkspace(merged) ? 'Running' : 'Pending';
  const reason = step.kind === 'succeed' ? R.Succeeded : step.reason;
  const changes: Record<string, ConditionInput | undefined> = {
    Ready: condition('Ready', step.kind === 'succeed' ? 'True' : 'False', reason, step.message),
    Reconciling: condition('Reconciling', final ? 'False' : 'True', reason, step.message),
    Stalled: condition('Stalled', step.kind === 'fail' ? 'True' : 'False', reason, step.message),
  };
  if (final) {
    const deleted = finalWorkspaceDeleted(step, merged);
    changes.WorkspaceDeleted = condition('WorkspaceDeleted', deleted.status, deleted.reason, deleted.message);
  }
  return {
    ...merged,
    observedGeneration: test.metadata.generation,
    phase,
    reason,
    message: message(step.message),
    ...(final ? { completionTime: nowTime(now) } : {}),
    conditions: nextConditions({ metadata: test.metadata, status: merged }, changes, now),
  };
}

/** The status after a cleanup step: WorkspaceDeleted and the delete fields, never the phase or the result. */
export function nextCleanupStatus(
  test: CoderTemplateTest,
  deleted: WorkspaceDeletedState,
  fields: Partial<TestStatus>,
  now: Date,
): TestStatus {
  const merged: TestStatus = { ...test.status, ...fields };
  const changes = { WorkspaceDeleted: condition('WorkspaceDeleted', deleted.status, deleted.reason, deleted.message) };
  return { ...merged, conditions: nextConditions({ metadata: test.metadata, status: merged }, changes, now) };
}
