// One Coder list per resource per namespace per 30 s, however many Kubernetes clients list (the garbage
// collector and quota monitors of kube-controller-manager relist every resource they discover). Calls
// while one is in flight share it; a write through this server drops that namespace's entry.
export const listCacheTtlMs = 30_000;

export class ListCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(ttlMs = listCacheTtlMs, now: () => number = Date.now) {
    this.ttlMs = ttlMs;
    this.now = now;
  }

  get(key: string, load: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry && this.now() - entry.at < this.ttlMs) return entry.value;
    const value = load();
    const fresh = { at: this.now(), value };
    this.entries.set(key, fresh);
    // A failure is not kept: the next caller tries again.
    value.catch(() => {
      if (this.entries.get(key) === fresh) this.entries.delete(key);
    });
    return value;
  }

  invalidate(key: string): void {
    this.entries.delete(key);
  }
}
