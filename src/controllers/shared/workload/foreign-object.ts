// The rule before applying a child: server-side apply with force would silently take over a same-named
// object that someone else created (and the owner's cleanup or garbage collection would later delete it),
// so an existing object the operator does not already manage is left untouched and reported instead.
// The cache decides; an object it has not seen yet makes the create-only apply fail with 409 (runtime/apply.ts),
// and only then is the object read.
import type { KubeObject } from '../../../runtime/informer.ts';
import { isConflict } from '../../../runtime/kube-http.ts';
import type { ResourceKind } from '../../../runtime/resource.ts';
import type { Writer } from '../../../runtime/writer.ts';

/** What may be applied over: the cached object (undefined when absent), or the description of a foreign one. */
export type ApplyTarget<T> = { foreign: false; live: T | undefined } | { foreign: true; description: string };

/** The object as applied, or the description of the foreign one left alone. */
export type AppliedChild<T> = { foreign: false; object: T } | { foreign: true; description: string };

/** `Deployment "ns/name"`, for messages and Events. */
function describeObject(resource: ResourceKind, obj: KubeObject): string {
  const { namespace, name } = obj.metadata ?? {};
  return `${resource.kind} "${namespace ? `${namespace}/` : ''}${name ?? ''}"`;
}

/** The object `desired` would overwrite, as `known` (the cache, or a live read) shows it, checked with `isOurs`. */
export function applyTarget<T extends KubeObject>(
  resource: ResourceKind,
  desired: T,
  known: T | undefined,
  isOurs: (live: T) => boolean,
): ApplyTarget<T> {
  if (known && !isOurs(known)) return { foreign: true, description: describeObject(resource, desired) };
  return { foreign: false, live: known };
}

/**
 * Applies `desired` over the cached object when the owner controls it, or creates it when the cache has
 * none. A create refused because the object exists after all (the cache is behind) reads it and decides again.
 */
export async function applyChild<T extends KubeObject>(
  writer: Writer,
  resource: ResourceKind,
  desired: T,
  cached: T | undefined,
  isOurs: (live: T) => boolean,
): Promise<AppliedChild<T>> {
  const target = applyTarget(resource, desired, cached, isOurs);
  if (target.foreign) return target;
  try {
    return { foreign: false, object: (await writer.apply(resource, desired, target.live)).object };
  } catch (err) {
    if (target.live || !isConflict(err)) throw err;
  }
  const { namespace, name } = desired.metadata ?? {};
  const live = await writer.get<T>(resource, namespace, name!);
  const again = applyTarget(resource, desired, live, isOurs);
  if (again.foreign) return again;
  return { foreign: false, object: (await writer.apply(resource, desired, again.live)).object };
}
