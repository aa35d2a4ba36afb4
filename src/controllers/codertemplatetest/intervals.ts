// How long a template test waits before it looks again: polls, the 429 backoff and the
// delete-retry backoff. The Go original's values; nothing here is tuned for tests.
export const pendingPollMs = 15_000;
export const runningPollMs = 5_000;
export const siteOwnerWaitMs = 60_000;
export const cleanupDeletingPollMs = 5_000;
export const cleanupUnavailablePollMs = 60_000;
/** How long after an uncertain create the controller keeps reading Coder before it gives up. */
export const confirmSettleMs = 15 * 60_000;

const rateLimitBaseMs = 2_000;
export const rateLimitCapMs = 2 * 60_000;
const deleteRetryBaseMs = 60_000;
const deleteRetryCapMs = 30 * 60_000;

/**
 * The wait after the n-th 429 in a row (n ≥ 1): 2 s·2^(n−1), capped at 2 minutes, times a jitter of
 * 0.8…1.2, and never above 2 minutes after the jitter either.
 */
export function rateLimitDelayMs(n: number, random: () => number = Math.random): number {
  const base = Math.min(rateLimitBaseMs * 2 ** Math.max(0, Math.min(n - 1, 20)), rateLimitCapMs);
  return Math.min(Math.round(base * (0.8 + 0.4 * random())), rateLimitCapMs);
}

/** The wait before a new delete build after `attempts` failed ones: 1 minute doubling, at most 30 minutes. */
export function deleteRetryDelayMs(attempts: number): number {
  return Math.min(deleteRetryBaseMs * 2 ** Math.max(0, Math.min(attempts - 1, 20)), deleteRetryCapMs);
}
