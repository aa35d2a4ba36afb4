// An informer for one kind (in one namespace or all): a paginated list, then a watch with bookmarks;
// relist on 410 Gone, restart with capped backoff on any other error, a silent stream, or a watch that
// the server (or a proxy) ends almost at once, so a stream closed on open is no hot loop. It keeps a
// cache without managedFields, indexes over it, and tells whether it has synced and whether it is stale.
import type { Logger } from 'pino';
import { abortableSleep } from './abortable-sleep.ts';
import { Backoff } from './backoff.ts';
import { isGone, isNotFound, type KubeHttp } from './kube-http.ts';
import { collectionPath, type ResourceKind } from './resource.ts';
import { watchOnce, type WatchEvent } from './watch-stream.ts';

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
  deletionTimestamp?: string | Date;
  finalizers?: string[];
  managedFields?: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export type IndexFunc<T> = (obj: T) => string[];

export interface InformerOptions<T = KubeObject> {
  namespace?: string;
  labelSelector?: string;
  /** For one object by name (`metadata.name=<n>`), which a Role limited to resourceNames allows to list and watch. */
  fieldSelector?: string;
  pageSize?: number;
  /** The watch is stale when it has not been connected for this long. */
  staleAfterMs?: number;
  logger?: Logger;
  /** Told of each failed list or watch instead of the warning logged, for a caller that words (or rate-limits) its own. */
  onError?: (err: Error) => void;
  /**
   * Initial and largest delay between failed attempts (each jittered up to twice as long, within the
   * largest), and how long without a failure resets it (default 2 min, as client-go).
   */
  backoffMs?: { initial: number; max: number; resetAfter?: number };
  /**
   * What is kept of each object (and handed to handlers), as client-go's SetTransform: a cache may drop
   * what it never reads, such as the data of Secrets nobody uses (secret-cache.ts).
   */
  transform?: (obj: T) => T;
  /**
   * List and watch PartialObjectMetadata instead of whole objects (as client-go's metadata informers): the
   * API server sends, and the cache keeps, only each object's apiVersion, kind and metadata.
   */
  metadataOnly?: boolean;
  /**
   * The kind may not be served (a CRD not installed yet, or removed): a list answered 404 then counts as an
   * empty, synced and fresh cache, and the list is tried again with the backoff until the kind appears.
   */
  servedOptionally?: boolean;
  /** Called when a kind that was not served (servedOptionally) is listed after all. */
  onServed?: () => void;
}

/** The Accept headers of a metadata-only list and watch; plain JSON is the fallback of a server that cannot. */
const metadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const metadataWatchAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** A watch that ends sooner than this counts as a failure, as client-go's "very short watch". */
const shortestWatchMs = 1_000;

class WatchClosedEarlyError extends Error {}

function objectKey(obj: KubeObject): string {
  const { namespace, name } = obj.metadata ?? {};
  return namespace ? `${namespace}/${name}` : `${name}`;
}

export class Informer<T extends KubeObject> {
  private readonly store = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly indexers = new Map<string, { fn: IndexFunc<T>; values: Map<string, Set<string>>; of: Map<string, string[]> }>();
  /** key -> why an index function threw on the cached version of that object. */
  private readonly indexFailures = new Map<string, string>();
  private readonly stopper = new AbortController();
  private running?: Promise<void>;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private resourceVersion = '';
  private connectedSince?: number;
  /** The API server answered 404 to the last list: the kind is not served (servedOptionally only). */
  private notServed = false;
  private disconnectedSince = Date.now();
  private readonly path: string;
  private readonly http: KubeHttp;
  readonly resource: ResourceKind;
  private readonly options: InformerOptions<T>;

  constructor(http: KubeHttp, resource: ResourceKind, options: InformerOptions<T> = {}) {
    this.http = http;
    this.resource = resource;
    this.options = options;
    this.path = collectionPath(resource, options.namespace);
  }

  addHandlers(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
  }

  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(name)) throw new Error(`index ${name} exists on ${this.resource.plural}`);
    const index = { fn, values: new Map<string, Set<string>>(), of: new Map<string, string[]>() };
    this.indexers.set(name, index);
    for (const [key, obj] of this.store) this.indexAdd(index, this.indexValues(name, fn, obj, key), key);
  }

  /**
   * Why an index function threw on this object (it is then cached and reconciled, but under no value
   * of that index); undefined when every index took it. A reconcile may report it as a spec error.
   */
  indexFailure(namespace: string | undefined, name: string): string | undefined {
    return this.indexFailures.get(namespace ? `${namespace}/${name}` : name);
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(namespace ? `${namespace}/${name}` : name);
  }

  list(namespace?: string): T[] {
    const all = [...this.store.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata?.namespace === namespace);
  }

  byIndex(name: string, value: string): T[] {
    const index = this.indexers.get(name);
    if (!index) throw new Error(`no index ${name} on ${this.resource.plural}`);
    return [...(index.values.get(value) ?? [])].map((key) => this.store.get(key)).filter((o): o is T => o !== undefined);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** True when no watch has been open for longer than staleAfterMs (the cache may be behind). */
  isStale(now = Date.now()): boolean {
    if (this.connectedSince !== undefined || this.notServed) return false;
    return now - this.disconnectedSince > (this.options.staleAfterMs ?? 60_000);
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    const { initial, max, resetAfter = 120_000 } = this.options.backoffMs ?? { initial: 1_000, max: 30_000 };
    const backoff = new Backoff({ initialMs: initial, maxMs: max, resetAfterMs: resetAfter });
    const signal = this.stopper.signal;
    while (!signal.aborted) {
      try {
        if (!this.resourceVersion) await this.relist(signal);
        const timeoutSeconds = 240 + Math.floor(Math.random() * 120);
        const openedAt = Date.now();
        await watchOnce<T>(
          this.http,
          this.path,
          {
            resourceVersion: this.resourceVersion,
            labelSelector: this.options.labelSelector,
            fieldSelector: this.options.fieldSelector,
            accept: this.options.metadataOnly ? metadataWatchAccept : undefined,
            timeoutSeconds,
            idleMs: (timeoutSeconds + 30) * 1_000,
            signal,
            onConnected: () => {
              this.connectedSince = Date.now();
            },
          },
          (event) => this.apply(event),
        );
        if (!signal.aborted && Date.now() - openedAt < shortestWatchMs) {
          throw new WatchClosedEarlyError(`the watch ended ${Date.now() - openedAt} ms after it was opened`);
        }
      } catch (err) {
        if (this.options.servedOptionally && isNotFound(err)) {
          // A watch answered 404: relist, which tells whether the kind is still served.
          if (this.resourceVersion) {
            this.resourceVersion = '';
            continue;
          }
          this.markNotServed();
          await abortableSleep(backoff.next(), signal);
          continue;
        }
        if (isGone(err)) {
          this.options.logger?.info({ resource: this.resource.plural }, 'watch expired (410 Gone); relisting');
          this.resourceVersion = '';
          continue;
        }
        const delay = backoff.next();
        if (this.options.onError) this.options.onError(err as Error);
        else
          this.options.logger?.warn(
            { resource: this.resource.plural, err: (err as Error).message, retryInMs: delay },
            'list or watch failed; retrying',
          );
        this.markDisconnected();
        await abortableSleep(delay, signal);
        continue;
      }
      this.markDisconnected();
    }
    this.markDisconnected();
  }

  /** The kind is not served: nothing of it exists, so the cache is empty, and synced (no watch to wait for). */
  private markNotServed(): void {
    if (!this.notServed)
      this.options.logger?.info({ resource: this.resource.plural }, 'not served by the API server; checking again until it is');
    this.notServed = true;
    this.markDisconnected();
    for (const [key, obj] of [...this.store]) this.remove(key, obj);
    this.markSynced();
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    for (const resolve of this.syncWaiters.splice(0)) resolve();
  }

  private markDisconnected(): void {
    if (this.connectedSince !== undefined) this.disconnectedSince = Date.now();
    this.connectedSince = undefined;
  }

  /** Lists every page, then replaces the cache, telling handlers what changed since the last list. */
  private async relist(signal: AbortSignal): Promise<void> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let listVersion = '';
    do {
      const page = await this.http.json<{ items: T[] | null; metadata: { continue?: string; resourceVersion: string } }>('GET', this.path, {
        signal,
        accept: this.options.metadataOnly ? metadataListAccept : undefined,
        query: {
          limit: this.options.pageSize ?? 500,
          continue: continueToken,
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
        },
      });
      // An empty PartialObjectMetadataList (metadataOnly) comes with `items: null`.
      items.push(...(page.items ?? []));
      continueToken = page.metadata.continue || undefined;
      listVersion ||= page.metadata.resourceVersion;
    } while (continueToken);

    const seen = new Set<string>();
    for (const raw of items) {
      // Items of a list carry no apiVersion/kind; give them the kind's, as watch events have.
      const obj = { apiVersion: this.resource.apiVersion, kind: this.resource.kind, ...raw } as T;
      seen.add(objectKey(obj));
      this.upsert(obj);
    }
    for (const [key, obj] of [...this.store]) if (!seen.has(key)) this.remove(key, obj);
    this.resourceVersion = listVersion;
    if (this.notServed) {
      this.notServed = false;
      this.options.logger?.info({ resource: this.resource.plural }, 'now served by the API server; watching it');
      this.options.onServed?.();
    }
    this.markSynced();
  }

  private apply(event: WatchEvent<T>): void {
    const obj = event.object;
    if (obj.metadata?.resourceVersion) this.resourceVersion = obj.metadata.resourceVersion;
    if (event.type === 'BOOKMARK') return;
    if (event.type === 'DELETED') {
      const key = objectKey(obj);
      this.remove(key, this.store.get(key) ?? this.stripped(obj));
    } else this.upsert(obj);
  }

  private stripped(obj: T): T {
    if (obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
    return this.options.transform ? this.options.transform(obj) : obj;
  }

  /**
   * Puts `obj`, read live, in place of the cached version of the same resourceVersion (one the transform
   * cut down); handlers are not told, nothing changed. False when the cache holds another version or none.
   */
  fill(obj: T): boolean {
    const key = objectKey(obj);
    const cached = this.store.get(key);
    if (!cached || cached.metadata?.resourceVersion !== obj.metadata?.resourceVersion) return false;
    if (obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
    this.store.set(key, obj);
    return true;
  }

  private upsert(raw: T): void {
    const obj = this.stripped(raw);
    const key = objectKey(obj);
    const old = this.store.get(key);
    if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return;
    this.store.set(key, obj);
    this.unindex(key);
    for (const [name, index] of this.indexers) this.indexAdd(index, this.indexValues(name, index.fn, obj, key), key);
    for (const h of this.handlers) {
      if (old) h.onUpdate?.(old, obj);
      else h.onAdd?.(obj);
    }
  }

  private remove(key: string, obj: T): void {
    const existed = this.store.delete(key);
    this.unindex(key);
    if (existed) for (const h of this.handlers) h.onDelete?.(obj);
  }

  /**
   * An index function's values for `obj`; none when it throws (a spec it did not expect, say), so one
   * odd object can neither stop the informer nor go unreconciled. The failure is kept for the reconcile.
   */
  private indexValues(name: string, fn: IndexFunc<T>, obj: T, key: string): string[] {
    try {
      return fn(obj);
    } catch (err) {
      const message = `index ${name} cannot be computed: ${err instanceof Error ? err.message : String(err)}`;
      if (!this.indexFailures.has(key)) {
        this.options.logger?.warn({ resource: this.resource.plural, object: key, err: message }, 'an index function failed on an object');
      }
      this.indexFailures.set(key, message);
      return [];
    }
  }

  /** Removes `key` from every index, under the values it was indexed with (not what the functions say now). */
  private unindex(key: string): void {
    this.indexFailures.delete(key);
    for (const { values, of } of this.indexers.values()) {
      for (const v of of.get(key) ?? []) {
        const keys = values.get(v);
        keys?.delete(key);
        if (keys?.size === 0) values.delete(v);
      }
      of.delete(key);
    }
  }

  private indexAdd(index: { values: Map<string, Set<string>>; of: Map<string, string[]> }, indexValues: string[], key: string): void {
    index.of.set(key, indexValues);
    for (const v of indexValues) {
      const keys = index.values.get(v) ?? new Set<string>();
      keys.add(key);
      index.values.set(v, keys);
    }
  }
}
