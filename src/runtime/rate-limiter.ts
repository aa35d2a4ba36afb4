// How long a key waits before it is retried: per-key exponential backoff (client-go's 5 ms doubling
// to 1000 s) combined with a global token bucket (10 per second, burst 100), whichever is longer.
export interface RateLimiter {
  /** The delay before `key` may run again, counting this as one more failure. */
  when(key: string): number;
  /** Forget the failures of `key` (after a success). */
  forget(key: string): void;
  failures(key: string): number;
}

export class ExponentialBackoff implements RateLimiter {
  private readonly counts = new Map<string, number>();
  private readonly baseMs: number;
  private readonly maxMs: number;

  constructor(baseMs = 5, maxMs = 1_000_000) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  when(key: string): number {
    const n = this.counts.get(key) ?? 0;
    this.counts.set(key, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }

  forget(key: string): void {
    this.counts.delete(key);
  }

  failures(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

export class TokenBucket implements RateLimiter {
  private tokens: number;
  private last: number;
  private readonly perSecond: number;
  private readonly burst: number;
  private readonly now: () => number;

  constructor(perSecond = 10, burst = 100, now = () => Date.now()) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.now = now;
    this.tokens = burst;
    this.last = now();
  }

  /** Reserves the next token and returns how long until it is available. */
  when(): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.perSecond) * 1000);
  }

  forget(): void {}

  failures(): number {
    return 0;
  }
}

class MaxOf implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return Math.max(...this.limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  failures(key: string): number {
    return Math.max(...this.limiters.map((l) => l.failures(key)));
  }
}

export function defaultControllerRateLimiter(): RateLimiter {
  return new MaxOf(new ExponentialBackoff(), new TokenBucket());
}
