// Coder's answers as Kubernetes errors, except that Coder refusing the operator's own
// token (401, 403) is a 503 naming the control plane: the caller did nothing wrong. Messages never
// carry the Coder URL.
import { CoderApiError, CoderResponseTooLargeError, CoderTimeoutError, CrossOriginRedirectError } from '../../coder/errors.ts';
import type { CoderTarget } from '../backend.ts';
import { ApiStatusError, badRequest, internalError, notFound, unavailable } from '../status.ts';

export interface CoderCallTarget {
  /** Plural resource, for NotFound. */
  resource: string;
  /** The object's name, or "<list>" for a list. */
  name: string;
  /** Who the token belongs to, for example `CoderControlPlane "ns/name"`. */
  backend: string;
}

export function kubernetesError(err: unknown, target: CoderCallTarget): ApiStatusError {
  if (err instanceof ApiStatusError) return err;
  if (err instanceof CoderApiError) {
    const text = err.coderMessage || `Coder answered ${err.status}`;
    if (err.status === 404) return notFound(target.resource, target.name);
    if (err.status === 401 || err.status === 403)
      return unavailable(`Coder refused the operator token of ${target.backend} (${err.status}): ${text}`);
    if (err.status === 409)
      return /already exists/i.test(text)
        ? new ApiStatusError(409, 'AlreadyExists', text, { name: target.name, kind: target.resource })
        : new ApiStatusError(409, 'Conflict', text);
    if (err.status === 429) return new ApiStatusError(429, 'TooManyRequests', text, { retryAfterSeconds: 0 });
    if (err.status >= 400 && err.status < 500) return badRequest(text);
    return internalError(`Coder answered ${err.status}: ${text}`);
  }
  if (err instanceof CoderTimeoutError) return new ApiStatusError(504, 'Timeout', `Coder did not answer within ${err.timeoutMs} ms`);
  if (err instanceof CoderResponseTooLargeError)
    return internalError(
      `Coder's answer to ${err.method} ${err.path} for ${target.backend} is larger than the ${err.limitBytes} bytes the operator reads`,
    );
  if (err instanceof CrossOriginRedirectError)
    return internalError(`Coder redirected to another origin; the call was refused (${target.backend})`);
  return internalError(`calling Coder for ${target.backend}: ${(err as Error)?.name ?? 'error'}`);
}

/** A Coder call for the object `name` (or "<list>"): its failure as the Kubernetes error kubernetesError() makes. */
export type CoderCall = <T>(target: CoderTarget, name: string, fn: () => Promise<T>) => Promise<T>;

/** The CoderCall of a storage of `resource`. */
export function coderCall(resource: string): CoderCall {
  return async (target, name, fn) => {
    try {
      return await fn();
    } catch (err) {
      throw kubernetesError(err, { resource, name, backend: target.label });
    }
  };
}
