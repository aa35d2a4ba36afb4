// The outcomes the steps of a kind that keeps an object in a control plane's Coder (the AI kinds) give: a stop
// with Ready's reason, Synced True Applied, Synced False from a failed call or for what the user must change,
// the object in Coder that another object manages, and the Supported condition. Each problem stops the
// reconcile with its Ready reason, and says whether only the user can move the object on (Stalled).
import {
  CoderObjectReadyCondition as Ready,
  SupportedCondition as Supported,
  SyncedCondition as Synced,
} from '../../../../generated/types/conditions.ts';
import type { ConditionInput } from '../../../runtime/conditions.ts';
import { describeHolder } from '../coder-id-claims.ts';
import { syncFailure } from '../coder-sync-failure.ts';
import type { StepOutcome, Stop } from '../reconcile/outcome.ts';
import type { CoderObject } from './context.ts';

const R = Ready.reasons;

/** What the shared steps decide: conditions, and of the status only the Coder version every such kind reports. */
export type CoderObjectOutcome = StepOutcome<{ coderVersion?: string }>;

/** An outcome that stops, or one that goes on with what the step found (`What`): `out.stopsAt` tells which. */
export type Found<What, Outcome = CoderObjectOutcome> = (Outcome & { stop: Stop }) | (Outcome & What & { stop?: undefined });

/** Ready's reason and message for a step that stopped; by default only the user can move the object on. */
export function stopWith(reason: string, message: string, userMustAct = true): Stop {
  return { reason, message, userMustAct };
}

/** Synced True Applied. */
export function applied(message: string): CoderObjectOutcome {
  return { conditions: { [Synced.type]: { type: Synced.type, status: 'True', reason: Synced.reasons.Applied, message } } };
}

/** Synced False from a failed call; one that may pass on its own is also thrown (after the status write), so the queue backs off. */
export function syncFailed(action: string, err: unknown): CoderObjectOutcome & { stop: Stop } {
  const failure = syncFailure(action, err);
  return {
    conditions: { [Synced.type]: failure.condition },
    stop: stopWith(R.SyncFailed, failure.condition.message, !failure.retry),
    ...(failure.retry ? { error: err instanceof Error ? err : new Error(String(err)) } : {}),
  };
}

/** Synced False `syncedReason`, for what only the user can change. */
export function syncRefused(syncedReason: string, message: string): CoderObjectOutcome & { stop: Stop } {
  return {
    conditions: { [Synced.type]: { type: Synced.type, status: 'False', reason: syncedReason, message } },
    stop: stopWith(R.SyncFailed, message),
  };
}

/**
 * Synced and Ready False ManagedByAnotherObject: `what` (`The provider "openai"`) is `holder`'s; `field` names
 * the Coder name in spec.
 */
export function managedByAnother(holder: CoderObject, what: string, field: string): CoderObjectOutcome & { stop: Stop } {
  const reason = Synced.reasons.ManagedByAnotherObject;
  const message =
    `${what} in Coder is managed by ${describeHolder(holder)}; spec.adoptExisting does not take over what another object ` +
    `manages, and nothing was changed. This object goes on once that one is deleted; or choose another ${field}.`;
  return { conditions: { [Synced.type]: { type: Synced.type, status: 'False', reason, message } }, stop: stopWith(reason, message) };
}

export function supportedCondition(reason: string, message: string, status: 'True' | 'False' = 'True'): ConditionInput {
  return { type: Supported.type, status, reason, message };
}
