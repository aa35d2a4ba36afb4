// A map for verdicts and counters kept in memory on behalf of callers the operator does not control: at
// most `maxEntries` (the oldest written goes first), so no caller can grow it without bound, and, with a
// time to live, entries older than that read as absent.

export interface BoundedCacheOptions {
  maxEntries: number;
  /** How long an entry is returned after it was written; without it, entries live until evicted. */
  ttlMs?: number;
  now?: () => number;
}

export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  private readonly options: BoundedCacheOptions;

  constructor(options: BoundedCacheOptions) {
    this.options = options;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.options.ttlMs !== undefined && this.now() - entry.at >= this.options.ttlMs) return undefined;
    return entry.value;
  }

  /** Stores `value` as the newest entry, dropping the oldest when the cache is full. */
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at: this.now() });
    if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
