// Questions a caller asks of a failed Coder call, so controllers never compare status codes by hand.
import { CoderApiError, CoderNetworkError } from './errors.ts';

function isCoderApiError(err: unknown): err is CoderApiError {
  return err instanceof CoderApiError;
}

export function isCoderNotFound(err: unknown): boolean {
  return isCoderApiError(err) && err.status === 404;
}

export function isUnauthorized(err: unknown): boolean {
  return isCoderApiError(err) && err.status === 401;
}

export function isForbidden(err: unknown): boolean {
  return isCoderApiError(err) && err.status === 403;
}

/** 401 or 403: the token is wrong or lacks the permission; repeating the call will not help. */
export function isUnauthorizedOrForbidden(err: unknown): boolean {
  return isUnauthorized(err) || isForbidden(err);
}

/** Coder's message for a path that no route serves (coder/coder v2.26.1 coderd/httpapi/httpapi.go RouteNotFound). */
const routeNotFoundMessage = 'Route not found.';

/**
 * Coder is up and serves no such call: 405 (its router knows the path, not the method) or 404 with its
 * "Route not found." (no route at all). The call is wrong for this release, or the feature is missing
 * from it; sending it again changes nothing. A 404 about an object ("Resource not found ...") is not this.
 */
export function isRouteNotServed(err: unknown): err is CoderApiError {
  return isCoderApiError(err) && (err.status === 405 || (err.status === 404 && err.coderMessage === routeNotFoundMessage));
}

/**
 * Coder's answer for a {user} of the path that names no user: 400 "\"user\" must be an existing uuid or
 * username.", never 404 (coder/coder v2.24.0 to v2.36.0 coderd/httpmw/userparam.go).
 */
export function isUnknownUser(err: unknown): boolean {
  return isCoderApiError(err) && err.status === 400 && err.coderMessage === '"user" must be an existing uuid or username.';
}

function messageAndDetail(err: CoderApiError): string {
  return `${err.coderMessage ?? ''} ${err.detail ?? ''}`.toLowerCase();
}

/** Coder reports a unique-key clash (PostgreSQL's "duplicate key value ...") or "... already exists". */
function isAlreadyExists(err: unknown): boolean {
  if (!isCoderApiError(err)) return false;
  const text = messageAndDetail(err);
  return text.includes('duplicate key') || text.includes('already exists');
}

/**
 * Whether a license upload failed because Coder already holds that license. Coder answers a repeated
 * JWT with 500 "Unable to add license to database" and the unique violation on licenses_jwt_key as
 * detail. Message and detail are searched together, lower-cased, for `licenses_jwt_key`,
 * `duplicate key` or `already exists` (coder/coder coderd/licenses.go, postLicense).
 */
export function isDuplicateLicense(err: unknown): boolean {
  if (!isCoderApiError(err)) return false;
  return messageAndDetail(err).includes('licenses_jwt_key') || isAlreadyExists(err);
}

/**
 * Whether the same request may succeed if sent again: network failures, 429, and 5xx other than 501
 * (Not Implemented never changes) and other than a duplicate-key answer (Coder reports those as 500,
 * and repeating the insert hits the same row).
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof CoderNetworkError) return true;
  if (!isCoderApiError(err)) return false;
  if (err.status === 429) return true;
  return err.status >= 500 && err.status !== 501 && !isAlreadyExists(err);
}

/**
 * Whether Coder refused the call because an experiment is off: 403 with the message of Coder's
 * RequireExperiment middleware ("… requires enabling the 'x' experiment." or "… requires enabling the
 * following experiments: x, y"; coder/coder v2.26.1 coderd/httpmw/experiments.go). Enabling the experiments
 * can change the answer; repeating the call cannot.
 */
export function isExperimentRequired(err: unknown): boolean {
  return (
    isForbidden(err) && /requires enabling the (following experiments|'[^']+' experiment)/i.test((err as CoderApiError).coderMessage ?? '')
  );
}
