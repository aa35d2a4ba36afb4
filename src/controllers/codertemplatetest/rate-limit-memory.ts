// The per-object 429 backoff, in memory and so lost on restart: each 429 in a row
// doubles the wait before the next Coder call of that object, up to 2 minutes; any other outcome forgets it.
// A reconcile that comes early (a watch event, a control-plane change) sends nothing until the wait is over.
import { rateLimitDelayMs } from './intervals.ts';

export class RateLimitMemory {
  private readonly entries = new Map<string, { count: number; notBefore: number }>();

  /** Milliseconds until this object may call Coder again; 0 when it may now. */
  remainingMs(uid: string, now: number): number {
    const entry = this.entries.get(uid);
    return entry ? Math.max(0, entry.notBefore - now) : 0;
  }

  /** Records one more 429 in a row and returns the wait before the next call. */
  limited(uid: string, now: number, random?: () => number): number {
    const count = (this.entries.get(uid)?.count ?? 0) + 1;
    const delay = rateLimitDelayMs(count, random);
    this.entries.set(uid, { count, notBefore: now + delay });
    return delay;
  }

  /** Sends nothing for this object for `ms` (a wait that is not a 429: cleanup while Coder is unavailable). */
  pause(uid: string, now: number, ms: number): void {
    this.entries.set(uid, { count: this.count(uid), notBefore: now + ms });
  }

  /** How many 429s in a row this object met. */
  count(uid: string): number {
    return this.entries.get(uid)?.count ?? 0;
  }

  forget(uid: string): void {
    this.entries.delete(uid);
  }
}
