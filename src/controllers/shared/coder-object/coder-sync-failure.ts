// The Synced condition after a failed create, update or delete in Coder: the reason by HTTP status, Coder's
// message (with its validation errors) as the message, and whether to retry with backoff (not for a call
// Coder does not serve: HTTP 405, or 404 "Route not found.").
import { CoderApiError, routeNotServedMessage } from '../../../coder/errors.ts';
import { isRouteNotServed, isUnauthorizedOrForbidden } from '../../../coder/error-predicates.ts';
import type { ConditionWith } from '../../../runtime/conditions.ts';
import { scrubSecrets } from '../../../runtime/redaction.ts';
import { SyncedCondition } from '../../../../generated/types/conditions.ts';

// The AI kinds declare Synced with these reasons (schemas/common/conditions/synced.yaml).
const S = SyncedCondition;

/** The reasons of Synced that a failed call gives: every kind that declares Synced declares these. */
type FailureReason = (typeof S.reasons)['Forbidden' | 'CoderAPIError' | 'RateLimited' | 'CoderValidationFailed'];

export interface SyncFailure {
  condition: ConditionWith<typeof S.type, FailureReason>;
  /** true for failures that may pass on their own (429, 5xx, network): the caller throws so the queue backs off. */
  retry: boolean;
}

/** `action` says what was tried, for example `create the provider "openai"`. */
export function syncFailure(action: string, err: unknown): SyncFailure {
  const message = scrubSecrets(`Could not ${action}: ${err instanceof Error ? err.message : String(err)}`);
  const failed = (reason: FailureReason, retry: boolean): SyncFailure => ({
    condition: { type: S.type, status: 'False', reason, message },
    retry,
  });
  if (isUnauthorizedOrForbidden(err)) return failed(S.reasons.Forbidden, false);
  // Coder is up and serves no such call: sending it again changes nothing; the resync looks again.
  if (isRouteNotServed(err)) {
    return {
      condition: {
        type: S.type,
        status: 'False',
        reason: S.reasons.CoderAPIError,
        message: `Could not ${action}: ${routeNotServedMessage(err)}; upgrade Coder to a release the operator supports.`,
      },
      retry: false,
    };
  }
  if (err instanceof CoderApiError && err.status === 429) return failed(S.reasons.RateLimited, true);
  if (err instanceof CoderApiError && (err.status === 400 || err.status === 409 || err.status === 422)) {
    return failed(S.reasons.CoderValidationFailed, false);
  }
  return failed(S.reasons.CoderAPIError, true);
}
