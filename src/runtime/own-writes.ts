// The one answer to "the cache has not seen my own write yet": per object, the object as this process last
// wrote it (status and finalizer writes) and the resourceVersions it saw on the way there. Every such write
// carries the version it was computed from, so a version the writer saw before its last write is older than
// that write, and a cache still showing one is behind: the reconcile then starts from the written object.
// Any other version is newer than the write (it could only come after it) and is the truth again.
import { BoundedCache } from './bounded-cache.ts';
import type { KubeObject } from './informer.ts';
import type { ResourceKind } from './resource.ts';

/** How many objects' last writes are remembered. */
const maxObjects = 10_000;
/** How long a write is remembered: a cache that has not caught up by then meets a 409 instead. */
const rememberMs = 30_000;
/** How many of the versions behind a write are kept: a reconcile writes a few times at most. */
const maxVersionsBehind = 8;

interface OwnWrite {
  object: KubeObject;
  /** Versions older than `object`: seen, read or written over by this writer on the way to it. */
  behind: string[];
}

export class OwnWrites {
  private readonly writes: BoundedCache<OwnWrite>;

  constructor(now?: () => number) {
    this.writes = new BoundedCache({ maxEntries: maxObjects, ttlMs: rememberMs, now });
  }

  /** `cached`, or the object as this writer last wrote it while `cached` is older than that write. */
  current<T extends KubeObject>(resource: ResourceKind, cached: T): T {
    const key = objectKey(resource, cached);
    const own = this.writes.get(key);
    const version = cached.metadata?.resourceVersion;
    if (!own || !version || !own.behind.includes(version)) return cached;
    return { ...(own.object as T) };
  }

  /**
   * Records `written`, the API server's answer to a write that carried resourceVersion `over` (or, for a write
   * retried after a 409, the versions each attempt carried: all of them older than the write).
   */
  wrote(resource: ResourceKind, over: string | undefined | readonly string[], written: KubeObject): void {
    const version = written.metadata?.resourceVersion;
    const overs = (typeof over === 'string' ? [over] : (over ?? [])).filter(Boolean);
    if (!overs.length || !version) return;
    const key = objectKey(resource, written);
    const previous = this.writes.get(key);
    const behind = [...(previous ? [...previous.behind, previous.object.metadata?.resourceVersion ?? ''] : []), ...overs];
    // As the caches keep objects: without managedFields.
    const metadata = { ...written.metadata };
    delete metadata.managedFields;
    this.writes.set(key, { object: { ...written, metadata }, behind: [...new Set(behind)].filter(Boolean).slice(-maxVersionsBehind) });
  }

  /** A cache reported `obj`: once it shows a version that is not behind the write, the write is forgotten. */
  observed(resource: ResourceKind, obj: KubeObject): void {
    const key = objectKey(resource, obj);
    const own = this.writes.get(key);
    const version = obj.metadata?.resourceVersion;
    if (own && version && !own.behind.includes(version)) this.writes.delete(key);
  }
}

function objectKey(resource: ResourceKind, obj: KubeObject): string {
  return `${resource.apiVersion}/${resource.plural}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}
