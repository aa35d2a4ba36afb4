// The one way controllers reach the API server beyond their caches: live reads, creates, merge patches
// that carry the resourceVersion they were computed from (a stale cache yields 409, not a lost update),
// server-side apply of owned children, deletes, status and finalizer writes, and whether a resource is
// served. One HTTP stack (KubeHttp), one error type (KubeApiError), paths built here and nowhere else.
import { Applier } from './apply.ts';
import type { KubeObject } from './informer.ts';
import { isConflict, isNotFound, type KubeHttp } from './kube-http.ts';
import { applyMergePatch, mergePatchDiff } from './merge-patch.ts';
import { OwnWrites } from './own-writes.ts';
import { collectionPath, objectPath, type ResourceKind } from './resource.ts';

const mergePatch = 'application/merge-patch+json';
/** How long an answer of discovery is reused: a CRD installed later is seen within this. */
const discoveryTtlMs = 60_000;
/**
 * How many times a status write that meets 409 is sent again against the object read afresh. The cache
 * often lags the write a reconcile made a moment before; past this many, the conflict goes to the queue.
 */
const statusConflictRetries = 3;

function identity(obj: KubeObject): { namespace?: string; name: string; resourceVersion?: string } {
  const name = obj.metadata?.name;
  if (!name) throw new Error('object has no metadata.name');
  return { namespace: obj.metadata?.namespace, name, resourceVersion: obj.metadata?.resourceVersion };
}

export class Writer {
  private readonly http: KubeHttp;
  private readonly applier: Applier;
  private readonly discovery = new Map<string, { at: number; plurals: Set<string> }>();
  private readonly ownWrites = new OwnWrites();

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

  /**
   * A cache reported `obj`: an object this writer created and no cache had seen is the cache's again
   * (apply.ts), and so is one it wrote, once the cache shows that write or a newer version (own-writes.ts).
   * What the writer remembers of a `deleted` object is dropped.
   */
  observed(resource: ResourceKind, obj: KubeObject, deleted = false): void {
    this.applier.observed(resource, obj, deleted);
    this.ownWrites.observed(resource, obj);
  }

  /**
   * Deletes exactly this object: the UID precondition makes the API server refuse (409) a newer object that
   * has the same name, which is then left alone, as is one that is gone already. Returns whether it deleted.
   */
  async deleteExactly(resource: ResourceKind, obj: KubeObject): Promise<boolean> {
    const { namespace, name } = identity(obj);
    const uid = obj.metadata?.uid;
    if (!uid) throw new Error(`${resource.kind} "${namespace ?? ''}/${name}" has no metadata.uid to delete it by`);
    this.applier.forget(resource, obj);
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
   * The object to reconcile: `cached`, or the object as this writer last left it while the cache has not
   * seen that write yet (own-writes.ts). A reconcile that starts at once after another goes on from what
   * that one wrote, not from an older status, finalizer list or resourceVersion.
   */
  current<T extends KubeObject>(resource: ResourceKind, cached: T): T {
    return this.ownWrites.current(resource, cached);
  }

  /**
   * Patches the status subresource from `obj.status` to `next`, from the object as this writer last left
   * it; sends nothing when nothing changed. On 409 the same change is applied to the object read afresh and
   * sent again (a few times), so a cache one write behind costs a read, not a failed reconcile; with
   * `onConflict: 'fail'` the 409 is thrown instead, for a decision that must not rest on another version
   * than the one it was made from. Returns the object as it now stands.
   */
  async writeStatus<T extends KubeObject & { status?: unknown }>(
    resource: ResourceKind,
    obj: T,
    next: T['status'],
    options: { onConflict?: 'retry' | 'fail' } = {},
  ): Promise<{ wrote: boolean; object: T }> {
    const { namespace, name } = identity(obj);
    let current = this.current(resource, obj);
    const change = mergePatchDiff(current.status ?? {}, next ?? {});
    if (change === undefined) return { wrote: false, object: current };
    const tried: string[] = [];
    for (let retries = 0; ; retries++) {
      const over = current.metadata?.resourceVersion;
      if (!over) throw new Error(`${resource.kind} "${namespace ?? ''}/${name}" has no resourceVersion to write status at`);
      tried.push(over);
      try {
        const written = await this.http.json<T>('PATCH', `${objectPath(resource, namespace, name)}/status`, {
          contentType: mergePatch,
          body: { metadata: { resourceVersion: over }, status: change },
        });
        this.ownWrites.wrote(resource, tried, written);
        return { wrote: true, object: written };
      } catch (err) {
        if (!isConflict(err) || options.onConflict === 'fail' || retries === statusConflictRetries) throw err;
      }
      const live = await this.get<T>(resource, namespace, name);
      // Deleted meanwhile, or someone already wrote what this change would: nothing left to send.
      if (!live) return { wrote: false, object: current };
      if (mergePatchDiff(live.status ?? {}, applyMergePatch(live.status ?? {}, change)) === undefined)
        return { wrote: false, object: live };
      current = live;
    }
  }

  /** Adds `finalizer` unless present; returns whether it wrote. */
  async addFinalizer(resource: ResourceKind, obj: KubeObject, finalizer: string): Promise<boolean> {
    return (await this.withFinalizer(resource, obj, finalizer)) !== obj;
  }

  /**
   * `obj` with `finalizer` on it: as given when present, else as the API server returned it after adding
   * it, so a reconcile can go on from the written version instead of waiting for the watch to bring it.
   */
  async withFinalizer<T extends KubeObject>(resource: ResourceKind, obj: T, finalizer: string): Promise<T> {
    const current = obj.metadata?.finalizers ?? [];
    if (current.includes(finalizer)) return obj;
    const written = await this.mergePatch<T>(resource, obj, { metadata: { finalizers: [...current, finalizer] } });
    this.ownWrites.wrote(resource, obj.metadata?.resourceVersion, written);
    return this.current(resource, obj);
  }

  /** Removes `finalizer` if present; returns whether it wrote. */
  async removeFinalizer(resource: ResourceKind, obj: KubeObject, finalizer: string): Promise<boolean> {
    const current = obj.metadata?.finalizers ?? [];
    if (!current.includes(finalizer)) return false;
    try {
      const written = await this.mergePatch(resource, obj, { metadata: { finalizers: current.filter((f) => f !== finalizer) } });
      this.ownWrites.wrote(resource, obj.metadata?.resourceVersion, written);
    } catch (err) {
      // A cache that has not yet seen the deletion the last removal completed: the object is gone already.
      if (isNotFound(err)) return false;
      throw err;
    }
    return true;
  }

  /** Drops what discovery said of `apiVersion`, so the next served() asks again (an optional kind's cache just saw it appear). */
  forgetDiscovery(apiVersion: string): void {
    this.discovery.delete(apiVersion);
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
