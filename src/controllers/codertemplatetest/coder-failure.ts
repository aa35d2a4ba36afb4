// A Coder call that failed on the way or in Coder (not a bug here): the test waits CoderUnavailable.
import {
  CoderApiError,
  CoderNetworkError,
  CoderResponseTooLargeError,
  CoderTimeoutError,
  CrossOriginRedirectError,
  TooManyRedirectsError,
} from '../../coder/errors.ts';

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
