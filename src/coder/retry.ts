// How long to wait before repeating a Coder call: exponential backoff with jitter, or Retry-After.

export interface RetryPolicy {
  /** Attempts in all, the first included; 1 disables retries. */
  attempts: number;
  /** The wait before the first retry; it doubles for each further retry. */
  baseDelayMs: number;
  /** No wait is longer, whatever the backoff or Retry-After says. */
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxDelayMs: 10_000 };

/**
 * Retry-After as milliseconds: delay-seconds ("120") or an HTTP date. Undefined when absent or
 * unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry number `retry` (1 for the first retry): Retry-After when the server sent one,
 * else base·2^(retry-1) with "equal jitter" (between half and all of it), never above maxDelayMs.
 */
export function retryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxDelayMs);
  const full = Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  return Math.round(full / 2 + random() * (full / 2));
}
