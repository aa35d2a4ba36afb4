// A map for verdicts and counters kept in memory on behalf of callers the operator does not control: at
// most `maxEntries` (the oldest written goes first), so no caller can grow it without bound, and, with a
// time to live, entries older than that read as absent and are dropped as new ones are written.

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
    if (this.expired(entry, this.now())) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` as the newest entry, dropping expired entries, and the oldest when the cache is full. */
  set(key: string, value: V): void {
    const now = this.now();
    this.entries.delete(key);
    // The map keeps the order entries were written in, so the expired ones come first.
    for (const [oldKey, entry] of this.entries) {
      if (!this.expired(entry, now)) break;
      this.entries.delete(oldKey);
    }
    this.entries.set(key, { value, at: now });
    if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private expired(entry: { at: number }, now: number): boolean {
    return this.options.ttlMs !== undefined && now - entry.at >= this.options.ttlMs;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
