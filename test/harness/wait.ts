// Waiting in tests: poll with a deadline, and on timeout say what was awaited and what was last seen.
import { inspect } from 'node:util';

export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  { timeoutMs = 30_000, intervalMs = 200 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = value;
    } catch (err) {
      last = err instanceof Error ? `error: ${err.message}` : err;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last saw: ${inspect(last, { depth: 4 })}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
