// A Coder call that failed on the way or in Coder (not a bug here), as the step it makes: Coder serves no
// such call (fail EndpointNotFound: waiting changes nothing), Coder answered 404 about an object (wait
// CoderNotFound), or any other failure (wait CoderUnavailable).
import { isCoderNotFound, isRouteNotServed } from '../../coder/error-predicates.ts';
import {
  CoderApiError,
  CoderNetworkError,
  CoderResponseTooLargeError,
  CoderTimeoutError,
  CrossOriginRedirectError,
  routeNotServedMessage,
  TooManyRedirectsError,
} from '../../coder/errors.ts';
import { fail, R, wait, type Step } from './step.ts';

export function isCoderApiFailure(err: unknown): boolean {
  return (
    err instanceof CoderApiError ||
    err instanceof CoderNetworkError ||
    err instanceof CoderTimeoutError ||
    err instanceof CrossOriginRedirectError ||
    err instanceof TooManyRedirectsError ||
    err instanceof CoderResponseTooLargeError
  );
}

export function isRateLimited(err: unknown): boolean {
  return err instanceof CoderApiError && err.status === 429;
}

/** "<action>: Coder answered <status>: <short message>", short enough for a 256-byte status message. */
export function coderFailureMessage(err: unknown): string {
  if (err instanceof CoderApiError)
    return `${err.method} ${err.path}: Coder answered ${err.status}${err.coderMessage ? `: ${err.coderMessage.slice(0, 80)}` : ''}`;
  if (err instanceof CrossOriginRedirectError) return `${err.message} (${err.to})`;
  return (err as Error).message.slice(0, 160);
}

/** What the operator should say when Coder serves no such call: it names the call and the release. */
export function endpointNotFoundMessage(err: CoderApiError): string {
  return `${routeNotServedMessage(err)}: the operator needs this call, so waiting changes nothing; run a Coder release the operator supports.`;
}

/** The step for a failed call of an isCoderApiFailure error. */
export function coderFailureStep(err: unknown): Step {
  if (isRouteNotServed(err)) return fail(R.EndpointNotFound, endpointNotFoundMessage(err));
  if (isCoderNotFound(err)) return wait(R.CoderNotFound, coderFailureMessage(err));
  return wait(R.CoderUnavailable, coderFailureMessage(err), { rateLimited: isRateLimited(err) });
}
