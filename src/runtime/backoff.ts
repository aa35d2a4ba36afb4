// Exponential backoff with jitter and a cap that starts over after a quiet spell, as client-go's
// reflector backs off between list/watch attempts.
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** No backoff asked for this long (the last attempt lived long enough): start again at initialMs. */
  resetAfterMs: number;
  /** Each delay is stretched by up to this fraction, at random, so replicas do not retry in step. */
  jitter?: number;
}

export class Backoff {
  private current: number;
  private lastAt?: number;
  private readonly options: BackoffOptions;

  constructor(options: BackoffOptions) {
    this.options = options;
    this.current = options.initialMs;
  }

  /** The delay before the next attempt, growing on each call until a quiet spell resets it. */
  next(now = Date.now(), random = Math.random()): number {
    const { initialMs, maxMs, resetAfterMs, jitter = 1 } = this.options;
    if (this.lastAt !== undefined && now - this.lastAt > resetAfterMs) this.current = initialMs;
    this.lastAt = now;
    const base = Math.min(this.current, maxMs);
    this.current = Math.min(this.current * 2, maxMs);
    return Math.round(Math.min(base * (1 + jitter * random), maxMs));
  }
}
