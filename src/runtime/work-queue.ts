// A keyed work queue: one entry per key however often it is added, never handed out twice at once
// (a key added while it is being processed runs again after done()), delayed and rate-limited adds.
// Keys of a higher priority are handed out first, keys of one priority in the order they were added; adding a
// queued key again at a higher priority moves it up (as controller-runtime's priority queue).
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

export interface QueueMetrics {
  depth(n: number): void;
  added(): void;
  retried(): void;
  /** Seconds from add to get, and from get to done. */
  queued(seconds: number): void;
  worked(seconds: number): void;
}

export class WorkQueue {
  /** The queued keys by priority, highest first. */
  private readonly levels: { priority: number; keys: string[] }[] = [];
  private queued = 0;
  private readonly dirty = new Set<string>();
  /** The priority of each dirty key (queued, or to be queued when its processing is done). */
  private readonly priorities = new Map<string, number>();
  private readonly processing = new Map<string, number>();
  private readonly addedAt = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  readonly rateLimiter: RateLimiter;
  private readonly metrics?: QueueMetrics;

  constructor(rateLimiter: RateLimiter = defaultControllerRateLimiter(), metrics?: QueueMetrics) {
    this.rateLimiter = rateLimiter;
    this.metrics = metrics;
  }

  /** Queues `key` (once, however often added) at `priority` (0 unless given; higher goes first). */
  add(key: string, priority = 0): void {
    if (this.shuttingDown) return;
    if (this.dirty.has(key)) return this.raise(key, priority);
    this.metrics?.added();
    this.dirty.add(key);
    this.priorities.set(key, priority);
    this.addedAt.set(key, performance.now());
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Adds `key` after `delayMs`; of several pending delays for one key the earliest wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = Date.now() + delayMs;
    const pending = this.timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    this.timers.set(key, { at, timer });
  }

  /** Drops the delayed add of `key`, if any: a reconcile that succeeded decides anew when to look again. */
  cancelAfter(key: string): void {
    const pending = this.timers.get(key);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.timers.delete(key);
  }

  /** Adds `key` after its backoff: call when a reconcile of it failed. */
  addRateLimited(key: string): void {
    this.metrics?.retried();
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Clears the backoff of `key`: call when a reconcile of it succeeded. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  failures(key: string): number {
    return this.rateLimiter.failures(key);
  }

  /** The next key to process; undefined once the queue is shut down (queued keys are dropped). */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.levels.find((l) => l.keys.length)?.keys.shift();
    if (key !== undefined) {
      this.queued--;
      return Promise.resolve(this.take(key));
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    const started = this.processing.get(key);
    if (started !== undefined) this.metrics?.worked((performance.now() - started) / 1000);
    this.processing.delete(key);
    if (this.dirty.has(key)) this.push(key);
  }

  /** Stops handing out keys: in-flight ones finish, queued and delayed ones are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.levels.length = 0;
    this.queued = 0;
    this.metrics?.depth(0);
    for (const resolve of this.waiters.splice(0)) resolve(undefined);
  }

  get length(): number {
    return this.queued;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  /** How long the oldest key handed out and not yet done has been processing; 0 when none is. */
  longestInFlightMs(now = performance.now()): number {
    let oldest = now;
    for (const started of this.processing.values()) oldest = Math.min(oldest, started);
    return now - oldest;
  }

  private push(key: string): void {
    if (this.shuttingDown) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(this.take(key));
      return;
    }
    this.enqueue(key, this.priorities.get(key) ?? 0);
    this.metrics?.depth(this.queued);
  }

  private enqueue(key: string, priority: number): void {
    let at = this.levels.findIndex((l) => l.priority <= priority);
    if (at === -1) at = this.levels.length;
    if (this.levels[at]?.priority !== priority) this.levels.splice(at, 0, { priority, keys: [] });
    this.levels[at]!.keys.push(key);
    this.queued++;
  }

  /** A dirty key added again: it keeps its place unless the new priority is higher. */
  private raise(key: string, priority: number): void {
    const current = this.priorities.get(key) ?? 0;
    if (priority <= current) return;
    this.priorities.set(key, priority);
    if (this.processing.has(key)) return;
    const level = this.levels.find((l) => l.priority === current)!;
    level.keys.splice(level.keys.indexOf(key), 1);
    this.queued--;
    this.enqueue(key, priority);
  }

  private take(key: string): string {
    this.dirty.delete(key);
    this.priorities.delete(key);
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (added !== undefined) this.metrics?.queued((performance.now() - added) / 1000);
    this.processing.set(key, performance.now());
    this.metrics?.depth(this.queued);
    return key;
  }
}
