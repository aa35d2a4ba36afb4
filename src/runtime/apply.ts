// Server-side apply of the objects the operator owns (field manager coder-k8s), sending nothing when the
// object already holds what we want, so a quiet cluster sees no writes.
//
// "Already holds" is decided without a request: (1) the object is unchanged since our own last apply
// of the same intent (remembered per object, for as long as it keeps its UID), or (2) it carries the hash of our intent and every desired
// field is present with our value. (2) catches drift by others; (1) keeps values the server normalizes
// (e.g. quantities) from causing a write on every reconcile.
//
// With no `live` object the apply may only create: it carries a resourceVersion no object can have, which
// the API server takes as a precondition of an update and drops on a create. An object of that name that
// the cache has not seen yet is then answered with 409 Conflict instead of being taken over, without a read
// before every create.
//
// An object this process created is not applied again while the cache has not seen it yet (Kubernetes'
// controllers call this an expectation): the caches report every object they see (observed()), and until
// then the created object stands for it. Otherwise a reconcile that follows a moment after the one that
// created it (its Deployment became ready) would meet that 409 and read the object.
import { createHash } from 'node:crypto';
import { BoundedCache } from './bounded-cache.ts';
import { jsonSubset } from './equality.ts';
import type { KubeObject } from './informer.ts';
import type { KubeHttp } from './kube-http.ts';
import { objectPath, type ResourceKind } from './resource.ts';

export const fieldManager = 'coder-k8s';
const appliedHashAnnotation = 'coder.com/applied-hash';
/**
 * How long a create stands for an object the cache has not reported: past this (a watch that missed the object,
 * which was deleted meanwhile), the create-only apply is sent again. As Kubernetes' own controllers expect.
 */
const unseenCreateTtlMs = 60_000;
const maxUnseenCreates = 10_000;
/** The largest resourceVersion the API server parses (a uint64); etcd's revisions are int64, so none has it. */
const noObjectsVersion = '18446744073709551615';

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function intentHash(desired: KubeObject): string {
  // Not digest('hex').slice(): a slice keeps the whole digest string alive for as long as the hash is remembered.
  return createHash('sha256').update(stableStringify(desired)).digest().toString('hex', 0, 16);
}

function memoKey(resource: ResourceKind, obj: KubeObject): string {
  return `${resource.apiVersion}/${resource.plural}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name}`;
}

export class Applier {
  /** By resource and name, so the memory is bounded by the objects that exist. */
  private readonly applied = new Map<string, { uid: string; hash: string; resourceVersion: string }>();
  /** Objects this process created that no cache has reported yet, by resource and name. */
  private readonly unseenCreates = new BoundedCache<{ hash: string; object: KubeObject }>({
    maxEntries: maxUnseenCreates,
    ttlMs: unseenCreateTtlMs,
  });
  /** Creates sent and not answered yet; a cache that reports the object meanwhile takes it off. */
  private readonly creating = new Set<string>();
  private readonly http: KubeHttp;

  constructor(http: KubeHttp) {
    this.http = http;
  }

  /**
   * Applies `desired` unless `live` (from the cache) already holds it; returns the object as it now is.
   * Without `live` it only creates: an existing object of that name is a 409 Conflict, left as it is.
   */
  async apply<T extends KubeObject>(resource: ResourceKind, desired: T, live: T | undefined): Promise<{ object: T; wrote: boolean }> {
    const hash = intentHash(desired);
    if (live && this.holds(resource, desired, live, hash)) return { object: live, wrote: false };
    const key = memoKey(resource, desired);
    const created = live ? undefined : this.unseenCreates.get(key);
    if (created?.hash === hash) return { object: created.object as T, wrote: false };
    const body = {
      ...desired,
      metadata: {
        ...desired.metadata,
        annotations: { ...desired.metadata?.annotations, [appliedHashAnnotation]: hash },
        ...(live ? {} : { resourceVersion: noObjectsVersion }),
      },
    };
    const { namespace, name } = desired.metadata ?? {};
    if (!live) this.creating.add(key);
    let object: T;
    try {
      object = await this.http.json<T>('PATCH', objectPath(resource, namespace, name!), {
        contentType: 'application/apply-patch+yaml',
        query: { fieldManager, force: true, fieldValidation: 'Strict' },
        body,
      });
    } catch (err) {
      this.creating.delete(key);
      throw err;
    }
    const uid = object.metadata?.uid;
    if (uid) this.applied.set(key, { uid, hash, resourceVersion: object.metadata!.resourceVersion! });
    // A watch event can come before the answer: a cache that has reported the object already answers for it.
    if (!live && this.creating.delete(key)) this.unseenCreates.set(key, { hash, object });
    return { object, wrote: true };
  }

  /**
   * A cache reported `obj` (added, changed or deleted): from now on the cache answers for it. A deleted object
   * (the garbage collector took a child with its owner, say) is forgotten, unless a newer one already took its name.
   */
  observed(resource: ResourceKind, obj: KubeObject, deleted = false): void {
    const key = memoKey(resource, obj);
    this.creating.delete(key);
    this.unseenCreates.delete(key);
    if (deleted && this.applied.get(key)?.uid === obj.metadata?.uid) this.applied.delete(key);
  }

  /** The object is deleted by this process: nothing it applied or created stands for it any more. */
  forget(resource: ResourceKind, obj: KubeObject): void {
    const key = memoKey(resource, obj);
    this.applied.delete(key);
    this.unseenCreates.delete(key);
  }

  private holds(resource: ResourceKind, desired: KubeObject, live: KubeObject, hash: string): boolean {
    const remembered = this.applied.get(memoKey(resource, desired));
    if (
      remembered &&
      remembered.uid === live.metadata?.uid &&
      remembered.hash === hash &&
      remembered.resourceVersion === live.metadata?.resourceVersion
    )
      return true;
    return live.metadata?.annotations?.[appliedHashAnnotation] === hash && jsonSubset(desired, live);
  }
}
