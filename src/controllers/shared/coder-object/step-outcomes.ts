// The outcomes the steps of a kind that keeps an object in a control plane's Coder (the AI kinds) give: a stop
// with Ready's reason, Synced True Applied, Synced False from a failed call or for what the user must change,
// the object in Coder that another object manages, and the Supported condition. Each problem stops the
// reconcile with its Ready reason, and says whether only the user can move the object on (Stalled). Each is typed
// by the conditions it sets, with only the reasons it gives, so that a kind's steps add it only when the kind
// declares them.
import {
  CoderObjectReadyCondition as Ready,
  SupportedCondition as Supported,
  SyncedCondition as Synced,
} from '../../../../generated/types/conditions.ts';
import type { ConditionWith } from '../../../runtime/conditions.ts';
import { describeHolder } from './coder-id-claims.ts';
import { syncFailure, type SyncFailure } from './coder-sync-failure.ts';
import type { AnyConditionChanges, ChangeOf, NoConditionChanges, StepOutcome, Stop } from '../reconcile/outcome.ts';
import type { CoderObject } from './context.ts';

const R = Ready.reasons;

/**
 * What the shared steps decide: the conditions `Changes` (none by default), and of the status only the Coder
 * version every such kind reports.
 */
export type CoderObjectOutcome<Changes extends AnyConditionChanges = NoConditionChanges> = StepOutcome<{ coderVersion?: string }, Changes>;

/** Ready with `Reason`: what a step's stop gives it, listed among the step's changes. */
export type ReadyWith<Reason extends string> = ConditionWith<typeof Ready.type, Reason>;

/** Synced with one of `Reason`: each kind declares the shared reasons it gives, and reasons of its own. */
type SyncedChange<Reason extends string, StopReason extends string = never> = ChangeOf<
  ConditionWith<typeof Synced.type, Reason> | ReadyWith<StopReason>
>;

/** An outcome that stops, or one that goes on with what the step found (`What`): `out.stopsAt` tells which. */
export type Found<What, Outcome = CoderObjectOutcome> = (Outcome & { stop: Stop }) | (Outcome & What & { stop?: undefined });

/** Ready's reason and message for a step that stopped; by default only the user can move the object on. */
export function stopWith<Reason extends string>(reason: Reason, message: string, userMustAct = true): Stop<Reason> {
  return { reason, message, userMustAct };
}

/** Synced True Applied. */
export function applied(message: string): CoderObjectOutcome<SyncedChange<typeof Synced.reasons.Applied>> {
  return { conditions: { [Synced.type]: { type: Synced.type, status: 'True', reason: Synced.reasons.Applied, message } } };
}

/** Synced False from a failed call; one that may pass on its own is also thrown (after the status write), so the queue backs off. */
export function syncFailed(
  action: string,
  err: unknown,
): CoderObjectOutcome<ChangeOf<SyncFailure['condition'] | ReadyWith<typeof R.SyncFailed>>> & { stop: Stop } {
  const failure = syncFailure(action, err);
  return {
    conditions: { [Synced.type]: failure.condition },
    stop: stopWith(R.SyncFailed, failure.condition.message, !failure.retry),
    ...(failure.retry ? { error: err instanceof Error ? err : new Error(String(err)) } : {}),
  };
}

/** Synced False `syncedReason` (a constant of the kind's Synced), for what only the user can change. */
export function syncRefused<Reason extends string>(
  syncedReason: Reason,
  message: string,
): CoderObjectOutcome<SyncedChange<Reason, typeof R.SyncFailed>> & { stop: Stop } {
  return {
    conditions: { [Synced.type]: { type: Synced.type, status: 'False', reason: syncedReason, message } },
    stop: stopWith(R.SyncFailed, message),
  };
}

/**
 * Synced and Ready False ManagedByAnotherObject: `what` (`The provider "openai"`) is `holder`'s; `field` names
 * the Coder name in spec.
 */
export function managedByAnother(
  holder: CoderObject,
  what: string,
  field: string,
): CoderObjectOutcome<SyncedChange<typeof Synced.reasons.ManagedByAnotherObject, typeof R.ManagedByAnotherObject>> & { stop: Stop } {
  const reason = Synced.reasons.ManagedByAnotherObject;
  const message =
    `${what} in Coder is managed by ${describeHolder(holder)}; spec.adoptExisting does not take over what another object ` +
    `manages, and nothing was changed. This object goes on once that one is deleted; or choose another ${field}.`;
  return { conditions: { [Synced.type]: { type: Synced.type, status: 'False', reason, message } }, stop: stopWith(reason, message) };
}

/** Supported with `reason`, a constant of the kind's Supported (the MCP server declares reasons of its own). */
export function supportedCondition<Reason extends string>(
  reason: Reason,
  message: string,
  status: 'True' | 'False' = 'True',
): ConditionWith<typeof Supported.type, Reason> {
  return { type: Supported.type, status, reason, message };
}
