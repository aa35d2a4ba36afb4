// The Secret cache: every Secret's metadata, but the data only of those the operator uses, so memory does
// not grow with the Secrets of a cluster (Helm keeps every release in one). Kept whole: Secrets labelled
// or owned under coder.com (credentials, what the operator created) and any Secret a reconcile has read.
// Reading a Secret whose data was dropped fetches it live: that reconcile ends with CachedDataPending and
// runs again once the data is in, so controllers read the cache as before and never see a Secret without
// its data. Handlers and indexes see every Secret (metadata is all they use), so watches fire as before.
import type { Cache } from './cache.ts';
import type { IndexFunc, InformerHandlers, KubeObject } from './informer.ts';

type Secret = KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> };

/** The operator's own API group: its labels and owner references mark the Secrets it uses. */
const operatorGroup = 'coder.com';

/** Thrown by a read of a Secret whose data is being fetched; the reconcile runs again when `ready` settles. */
export class CachedDataPending extends Error {
  override readonly name = 'CachedDataPending';
  readonly ready: Promise<void>;
  constructor(message: string, ready: Promise<void>) {
    super(message);
    this.ready = ready;
  }
}

function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** A Secret the operator labelled, owns, or is asked to use by a label of its group. */
export function markedForOperator(secret: Secret): boolean {
  const labelled = Object.keys(secret.metadata?.labels ?? {}).some((k) => k.startsWith(`${operatorGroup}/`));
  const owned = (secret.metadata?.ownerReferences ?? []).some((r) => r.apiVersion.startsWith(`${operatorGroup}/`));
  return labelled || owned;
}

export class SecretCache<T extends Secret> implements Cache<T> {
  private readonly wanted = new Set<string>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly cut = new WeakSet<object>();
  private readonly inner: Cache<T>;
  private readonly read: (namespace: string | undefined, name: string) => Promise<T | undefined>;

  /**
   * `makeInner` builds the underlying cache with the given transform (Informer's option); `read` gets
   * one Secret live.
   */
  constructor(
    makeInner: (transform: (obj: T) => T) => Cache<T>,
    read: (namespace: string | undefined, name: string) => Promise<T | undefined>,
  ) {
    this.read = read;
    this.inner = makeInner((obj) => this.transform(obj));
  }

  private transform(obj: T): T {
    const meta = obj.metadata ?? {};
    if (this.wanted.has(keyOf(meta.namespace, meta.name ?? '')) || markedForOperator(obj)) return obj;
    const { data: _data, stringData: _stringData, ...rest } = obj;
    const kept = rest as T;
    this.cut.add(kept);
    return kept;
  }

  /** The Secret; throws CachedDataPending when its data was dropped and is now being read. */
  get(namespace: string | undefined, name: string): T | undefined {
    const obj = this.inner.get(namespace, name);
    if (!obj || !this.cut.has(obj)) return obj;
    const key = keyOf(namespace, name);
    this.wanted.add(key);
    throw new CachedDataPending(`Secret ${key} is not cached with its data yet; it is being read`, this.load(key, obj));
  }

  private load(key: string, cached: T): Promise<void> {
    let loading = this.loading.get(key);
    if (!loading) {
      const { namespace, name } = cached.metadata ?? {};
      loading = this.read(namespace, name ?? '')
        .then((live) => {
          // Another version came through the watch meanwhile: kept whole, since the Secret is wanted now.
          if (live) this.inner.fill?.(live);
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading;
  }

  /** Every Secret; those nobody has read come without their data. */
  list(namespace?: string): T[] {
    return this.inner.list(namespace);
  }

  /** Secrets by an index value; those nobody has read come without their data. */
  byIndex(index: string, value: string): T[] {
    return this.inner.byIndex(index, value);
  }

  addIndex(index: string, fn: IndexFunc<T>): void {
    this.inner.addIndex(index, fn);
  }

  indexFailure(namespace: string | undefined, name: string): string | undefined {
    return this.inner.indexFailure?.(namespace, name);
  }

  addHandlers(handlers: InformerHandlers<T>): void {
    this.inner.addHandlers(handlers);
  }

  hasSynced(): boolean {
    return this.inner.hasSynced();
  }

  waitForSync(): Promise<void> {
    return this.inner.waitForSync();
  }

  isStale(): boolean {
    return this.inner.isStale();
  }

  start(): void {
    this.inner.start();
  }

  stop(): Promise<void> {
    return this.inner.stop();
  }
}
