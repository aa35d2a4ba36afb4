// What one reconcile of a running template test decides: wait (with a reason and when to look again),
// fail, or succeed, with the status fields it pins on the way.
import { CoderTemplateTestConditions as C, type CoderTemplateTestStatus } from '../../../generated/types/codertemplatetest.ts';

export type TestStatus = CoderTemplateTestStatus;
type ReadyReasons = typeof C.Ready.reasons;
export type TestReason = ReadyReasons[keyof ReadyReasons];
type WorkspaceDeletedReasons = typeof C.WorkspaceDeleted.reasons;
export type WorkspaceDeletedReason = WorkspaceDeletedReasons[keyof WorkspaceDeletedReasons];

export const R = C.Ready.reasons;
export const WD = C.WorkspaceDeleted.reasons;

export interface WorkspaceDeletedState {
  status: 'True' | 'False' | 'Unknown';
  reason: WorkspaceDeletedReason;
  message: string;
}

export type WaitReason =
  | ReadyReasons['Initializing']
  | ReadyReasons['ControlPlaneNotReady']
  | ReadyReasons['OperatorAccessNotReady']
  | ReadyReasons['OwnerNotConfigured']
  | ReadyReasons['OwnerNotEligible']
  | ReadyReasons['TemplateNotFound']
  | ReadyReasons['TemplateVersionNotFound']
  | ReadyReasons['TemplateVersionImporting']
  | ReadyReasons['CreatingWorkspace']
  | ReadyReasons['CreateRetrying']
  | ReadyReasons['ConfirmingCreate']
  | ReadyReasons['WaitingForBuild']
  | ReadyReasons['WaitingForAgents']
  | ReadyReasons['AgentsReady']
  | ReadyReasons['DeletingWorkspace']
  | ReadyReasons['CoderUnavailable']
  | ReadyReasons['CoderNotFound']
  | ReadyReasons['CoderAnswerMismatch'];

export type FailReason = Exclude<TestReason, WaitReason | ReadyReasons['Succeeded']>;

export type Step =
  | {
      kind: 'wait';
      reason: WaitReason;
      message: string;
      status?: Partial<TestStatus>;
      /** Overrides the phase's poll (15 s Pending, 5 s Running). */
      pollMs?: number;
      /** The wait came from a 429: the per-object backoff grows. */
      rateLimited?: boolean;
    }
  | {
      kind: 'fail';
      reason: FailReason;
      message: string;
      status?: Partial<TestStatus>;
      /** The step's own WorkspaceDeleted; otherwise decided by whether a workspace may exist. */
      workspaceDeleted?: WorkspaceDeletedState;
      /** A longer note for the Event than the 256-byte status message (build log lines). */
      eventNote?: string;
    }
  | { kind: 'succeed'; message: string; status?: Partial<TestStatus> };

export const wait = (reason: WaitReason, message: string, extra: Partial<Extract<Step, { kind: 'wait' }>> = {}): Step => ({
  kind: 'wait',
  reason,
  message,
  ...extra,
});

export const fail = (reason: FailReason, message: string, extra: Partial<Extract<Step, { kind: 'fail' }>> = {}): Step => ({
  kind: 'fail',
  reason,
  message,
  ...extra,
});

/** Coder answered about another object than the one asked for: a wait that the deadline ends, never a hot loop. */
export class CoderAnswerMismatch extends Error {
  override name = 'CoderAnswerMismatch';
}

/** Throws CoderAnswerMismatch unless Coder's answer names what was asked (ids compare without case). */
export function expectSame(what: string, asked: string | undefined | null, answered: string | undefined | null): void {
  if (!asked || !answered || asked.toLowerCase() !== answered.toLowerCase()) {
    throw new CoderAnswerMismatch(`Coder answered about ${what} "${answered ?? ''}" instead of "${asked ?? ''}".`);
  }
}
