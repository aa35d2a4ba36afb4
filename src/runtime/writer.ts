// The one way controllers reach the API server beyond their caches: live reads, creates, merge patches
// that carry the resourceVersion they were computed from (a stale cache yields 409, not a lost update),
// server-side apply of owned children, deletes, status and finalizer writes, and whether a resource is
// served. One HTTP stack (KubeHttp), one error type (KubeApiError), paths built here and nowhere else.
import { Applier } from './apply.ts';
import type { KubeObject } from './informer.ts';
import { isConflict, isNotFound, type KubeHttp } from './kube-http.ts';
import { applyMergePatch, mergePatchDiff } from './merge-patch.ts';
import { collectionPath, objectPath, type ResourceKind } from './resource.ts';

const mergePatch = 'application/merge-patch+json';
/** How long an answer of discovery is reused: a CRD installed later is seen within this. */
const discoveryTtlMs = 60_000;
/**
 * How many times a status write that meets 409 is sent again against the object read afresh. The cache
 * often lags the write a reconcile made a moment before; past this many, the conflict goes to the queue.
 */
const statusConflictRetries = 3;
/** How many objects' last status writes are remembered (see afterOwnWrite). */
const maxRememberedStatusWrites = 10_000;
/** How long a status write is remembered: a cache that has not caught up by then meets a 409 instead. */
const rememberStatusWritesMs = 30_000;

function statusWriteKey(resource: ResourceKind, namespace: string | undefined, name: string): string {
  return `${resource.apiVersion}/${resource.plural}/${namespace ?? ''}/${name}`;
}

function identity(obj: KubeObject): { namespace?: string; name: string; resourceVersion?: string } {
  const name = obj.metadata?.name;
  if (!name) throw new Error('object has no metadata.name');
  return { namespace: obj.metadata?.namespace, name, resourceVersion: obj.metadata?.resourceVersion };
}

export class Writer {
  private readonly http: KubeHttp;
  private readonly applier: Applier;
  private readonly discovery = new Map<string, { at: number; plurals: Set<string> }>();
  /** Per object: the status this writer last wrote, its resourceVersion, and the version it wrote over. */
  private readonly statusWrites = new Map<string, { over: string; resourceVersion: string; status: unknown; at: number }>();

  constructor(http: KubeHttp) {
    this.http = http;
    this.applier = new Applier(http);
  }

  /** The object as the API server has it now; undefined when it does not exist. */
  async get<T extends KubeObject>(resource: ResourceKind, namespace: string | undefined, name: string): Promise<T | undefined> {
    try {
      return await this.http.json<T>('GET', objectPath(resource, namespace, name));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Creates `obj`; an object of that name existing already is a 409, never adopted. */
  create<T extends KubeObject>(resource: ResourceKind, obj: T): Promise<T> {
    return this.http.json<T>('POST', collectionPath(resource, obj.metadata?.namespace), { body: obj });
  }

  /** Merge-patches `obj` (as read) with `patch`, on the condition that it has not changed since. */
  mergePatch<T extends KubeObject>(
    resource: ResourceKind,
    obj: KubeObject,
    patch: Record<string, unknown> & { metadata?: object },
  ): Promise<T> {
    const { namespace, name, resourceVersion } = identity(obj);
    return this.http.json<T>('PATCH', objectPath(resource, namespace, name), {
      contentType: mergePatch,
      body: { ...patch, metadata: { ...patch.metadata, resourceVersion } },
    });
  }

  /** Server-side apply of an owned child, sent only when `live` (from the cache) does not hold it already. */
  apply<T extends KubeObject>(resource: ResourceKind, desired: T, live: T | undefined): Promise<{ object: T; wrote: boolean }> {
    return this.applier.apply(resource, desired, live);
  }

  /** Deletes an object if it exists (children go in the background). */
  delete(resource: ResourceKind, namespace: string | undefined, name: string): Promise<void> {
    return this.applier.delete(resource, namespace, name);
  }

  /**
   * Deletes exactly this object: the UID precondition makes the API server refuse (409) a newer object that
   * has the same name, which is then left alone, as is one that is gone already. Returns whether it deleted.
   */
  async deleteExactly(resource: ResourceKind, obj: KubeObject): Promise<boolean> {
    const { namespace, name } = identity(obj);
    const uid = obj.metadata?.uid;
    if (!uid) throw new Error(`${resource.kind} "${namespace ?? ''}/${name}" has no metadata.uid to delete it by`);
    try {
      await this.http.json('DELETE', objectPath(resource, namespace, name), {
        body: { preconditions: { uid }, propagationPolicy: 'Background' },
      });
      return true;
    } catch (err) {
      if (isNotFound(err) || isConflict(err)) return false;
      throw err;
    }
  }

  /**
   * Patches the status subresource from `obj.status` to `next`; returns false (and sends nothing) when
   * nothing changed. On 409 the same change is applied to the object read afresh and sent again (a few
   * times), so a cache one write behind costs a read, not a failed reconcile.
   */
  async writeStatus<T extends KubeObject & { status?: unknown }>(resource: ResourceKind, obj: T, next: T['status']): Promise<boolean> {
    const { namespace, name, resourceVersion: cachedVersion } = identity(obj);
    const key = statusWriteKey(resource, namespace, name);
    let current: KubeObject & { status?: unknown } = this.afterOwnWrite(key, obj);
    const change = mergePatchDiff(current.status ?? {}, next ?? {});
    if (change === undefined) return false;
    for (let retries = 0; ; retries++) {
      try {
        const written = await this.http.json<KubeObject & { status?: unknown }>(
          'PATCH',
          `${objectPath(resource, namespace, name)}/status`,
          {
            contentType: mergePatch,
            body: { metadata: { resourceVersion: current.metadata?.resourceVersion }, status: change },
          },
        );
        this.rememberStatusWrite(key, cachedVersion, written);
        return true;
      } catch (err) {
        if (!isConflict(err) || retries === statusConflictRetries) throw err;
      }
      const live = await this.get<T>(resource, namespace, name);
      // Deleted meanwhile, or someone already wrote what this change would: nothing left to send.
      if (!live || mergePatchDiff(live.status ?? {}, applyMergePatch(live.status ?? {}, change)) === undefined) return false;
      current = live;
    }
  }

  /**
   * Patches the status subresource only while the object is still at the resourceVersion it was read with:
   * a 409 is thrown, never retried, for a controller whose next decision must not rest on a stale object.
   * Returns the object as written (its new resourceVersion), or `obj` itself when nothing changed.
   */
  async writeStatusAtVersion<T extends KubeObject & { status?: unknown }>(resource: ResourceKind, obj: T, next: T['status']): Promise<T> {
    const change = mergePatchDiff(obj.status ?? {}, next ?? {});
    if (change === undefined) return obj;
    const { namespace, name, resourceVersion } = identity(obj);
    if (!resourceVersion) throw new Error(`${resource.kind} "${namespace ?? ''}/${name}" has no resourceVersion to write status at`);
    return this.http.json<T>('PATCH', `${objectPath(resource, namespace, name)}/status`, {
      contentType: mergePatch,
      body: { metadata: { resourceVersion }, status: change },
    });
  }

  /**
   * `obj` (from a cache) with the status this writer last wrote to it, when the cache has not caught up
   * with that write yet: a reconcile that starts at once after another sees what that one wrote, not
   * an older status (and so, say, does not report the same problem twice).
   */
  withOwnStatus<T extends KubeObject & { status?: unknown }>(resource: ResourceKind, obj: T): T {
    const { namespace, name } = identity(obj);
    return this.afterOwnWrite(statusWriteKey(resource, namespace, name), obj);
  }

  /**
   * `obj` as this writer last left it, when the cache still shows the version it wrote over: the next
   * status write then goes from what the API server holds and meets no 409 (each one costs a read and
   * a write more). Once the cache shows anything else, it is the truth again.
   */
  private afterOwnWrite<T extends KubeObject & { status?: unknown }>(key: string, obj: T): T {
    const own = this.statusWrites.get(key);
    if (!own) return obj;
    if (own.over !== obj.metadata?.resourceVersion) {
      this.statusWrites.delete(key);
      return obj;
    }
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: own.resourceVersion }, status: own.status };
  }

  private rememberStatusWrite(key: string, over: string | undefined, written: KubeObject & { status?: unknown }): void {
    const resourceVersion = written?.metadata?.resourceVersion;
    if (!over || !resourceVersion) return;
    this.statusWrites.delete(key);
    // Oldest first out: a cache catches up within seconds, and an object deleted meanwhile leaves no entry for ever.
    const now = Date.now();
    for (const [oldest, entry] of this.statusWrites) {
      if (this.statusWrites.size < maxRememberedStatusWrites && now - entry.at < rememberStatusWritesMs) break;
      this.statusWrites.delete(oldest);
    }
    this.statusWrites.set(key, { over, resourceVersion, status: written.status, at: now });
  }

  /** Adds `finalizer` unless present; returns whether it wrote. */
  async addFinalizer(resource: ResourceKind, obj: KubeObject, finalizer: string): Promise<boolean> {
    const current = obj.metadata?.finalizers ?? [];
    if (current.includes(finalizer)) return false;
    await this.mergePatch(resource, obj, { metadata: { finalizers: [...current, finalizer] } });
    return true;
  }

  /**
   * `obj` with `finalizer` on it: as given when present, else as the API server returned it after adding
   * it, so a reconcile can go on from the written version instead of waiting for the watch to bring it.
   */
  async withFinalizer<T extends KubeObject>(resource: ResourceKind, obj: T, finalizer: string): Promise<T> {
    const current = obj.metadata?.finalizers ?? [];
    if (current.includes(finalizer)) return obj;
    const written = await this.mergePatch<T>(resource, obj, { metadata: { finalizers: [...current, finalizer] } });
    // As the caches keep objects: without managedFields.
    if (written.metadata?.managedFields !== undefined) delete written.metadata.managedFields;
    return written;
  }

  /** Removes `finalizer` if present; returns whether it wrote. */
  async removeFinalizer(resource: ResourceKind, obj: KubeObject, finalizer: string): Promise<boolean> {
    const current = obj.metadata?.finalizers ?? [];
    if (!current.includes(finalizer)) return false;
    try {
      await this.mergePatch(resource, obj, { metadata: { finalizers: current.filter((f) => f !== finalizer) } });
    } catch (err) {
      // A cache that has not yet seen the deletion the last removal completed: the object is gone already.
      if (isNotFound(err)) return false;
      throw err;
    }
    return true;
  }

  /** Whether the API server serves `resource` (discovery, which any authenticated user may read). */
  async served(resource: ResourceKind): Promise<boolean> {
    const cached = this.discovery.get(resource.apiVersion);
    if (cached && Date.now() - cached.at < discoveryTtlMs) return cached.plurals.has(resource.plural);
    const path = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.apiVersion}`;
    let plurals = new Set<string>();
    try {
      plurals = new Set((await this.http.json<{ resources: { name: string }[] }>('GET', path)).resources.map((r) => r.name));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.discovery.set(resource.apiVersion, { at: Date.now(), plurals });
    return plurals.has(resource.plural);
  }
}
