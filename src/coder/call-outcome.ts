// What one HTTP request to Coder ended with, in a few words a metric can carry: the outcome of each attempt,
// with its method, its route as the OpenAPI path template (never the expanded path with ids or names) and
// how long it took.
import { CoderApiError, CoderNetworkError } from './errors.ts';

export type CoderCallOutcome = 'success' | 'client_error' | 'server_error' | 'timeout' | 'network_error' | 'canceled' | 'error';

/** One attempt of a call: a retried call reports each attempt. */
export interface CoderCallRecord {
  method: string;
  /** The path template, for example /api/v2/workspaces/{workspace}. */
  route: string;
  outcome: CoderCallOutcome;
  seconds: number;
}

export type CoderCallObserver = (record: CoderCallRecord) => void;

/**
 * The outcome of a failed attempt. `timedOut` and `canceled` say whether the call's deadline or the caller's
 * signal ended it, which the error alone does not tell.
 */
export function failedCallOutcome(err: unknown, { timedOut, canceled }: { timedOut: boolean; canceled: boolean }): CoderCallOutcome {
  if (timedOut) return 'timeout';
  if (canceled) return 'canceled';
  if (err instanceof CoderApiError) return err.status >= 500 ? 'server_error' : 'client_error';
  if (err instanceof CoderNetworkError) return 'network_error';
  // A refused redirect, a body too large or not JSON.
  return 'error';
}
