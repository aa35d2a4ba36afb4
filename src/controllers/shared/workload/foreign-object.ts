// The rule before applying a child: server-side apply with force would silently take over a same-named
// object that someone else created (and the owner's cleanup or garbage collection would later delete it),
// so an existing object the operator does not already manage is left untouched and reported instead.
import type { KubeObject } from '../../../runtime/informer.ts';
import type { ResourceKind } from '../../../runtime/resource.ts';
import type { Writer } from '../../../runtime/writer.ts';

/** What may be applied: the live object (undefined when absent), or the description of a foreign one. */
export type ApplyTarget<T> = { foreign: false; live: T | undefined } | { foreign: true; description: string };

/** `Deployment "ns/name"`, for messages and Events. */
function describeObject(resource: ResourceKind, obj: KubeObject): string {
  const { namespace, name } = obj.metadata ?? {};
  return `${resource.kind} "${namespace ? `${namespace}/` : ''}${name ?? ''}"`;
}

/**
 * The object `desired` would overwrite, checked with `isOurs`. The cache may not have seen an object
 * created a moment ago, so an absent object is looked up live before the caller creates it.
 */
export async function applyTarget<T extends KubeObject>(
  writer: Writer,
  resource: ResourceKind,
  desired: T,
  cached: T | undefined,
  isOurs: (live: T) => boolean,
): Promise<ApplyTarget<T>> {
  const { namespace, name } = desired.metadata ?? {};
  const live = cached ?? (await writer.get<T>(resource, namespace, name!));
  if (live && !isOurs(live)) return { foreign: true, description: describeObject(resource, desired) };
  return { foreign: false, live };
}
