// Writes to an object the operator reconciles: its status (only when it changed) and its finalizers.
// Each write carries the resourceVersion it was computed from, so a stale cache yields 409, not a lost update.
import type { KubeObject } from './informer.ts';
import type { KubeHttp } from './kube-http.ts';
import { mergePatchDiff } from './merge-patch.ts';
import { objectPath, type ResourceKind } from './resource.ts';

const mergePatch = 'application/merge-patch+json';

function identity(obj: KubeObject): { namespace?: string; name: string; resourceVersion?: string } {
  const name = obj.metadata?.name;
  if (!name) throw new Error('object has no metadata.name');
  return { namespace: obj.metadata?.namespace, name, resourceVersion: obj.metadata?.resourceVersion };
}

/** Patches the status subresource to `next`; returns false (and sends nothing) when nothing changed. */
export async function writeStatusIfChanged<T extends KubeObject & { status?: unknown }>(http: KubeHttp, resource: ResourceKind,
  obj: T, next: T['status']): Promise<boolean> {
  const diff = mergePatchDiff(obj.status ?? {}, next ?? {});
  if (diff === undefined) return false;
  const { namespace, name, resourceVersion } = identity(obj);
  await http.json('PATCH', `${objectPath(resource, namespace, name)}/status`, {
    contentType: mergePatch,
    body: { metadata: { resourceVersion }, status: diff },
  });
  return true;
}

/** Adds `finalizer` unless present; returns whether it wrote. */
export async function addFinalizer(http: KubeHttp, resource: ResourceKind, obj: KubeObject, finalizer: string): Promise<boolean> {
  const current = obj.metadata?.finalizers ?? [];
  if (current.includes(finalizer)) return false;
  await patchFinalizers(http, resource, obj, [...current, finalizer]);
  return true;
}

/** Removes `finalizer` if present; returns whether it wrote. */
export async function removeFinalizer(http: KubeHttp, resource: ResourceKind, obj: KubeObject, finalizer: string): Promise<boolean> {
  const current = obj.metadata?.finalizers ?? [];
  if (!current.includes(finalizer)) return false;
  await patchFinalizers(http, resource, obj, current.filter((f) => f !== finalizer));
  return true;
}

async function patchFinalizers(http: KubeHttp, resource: ResourceKind, obj: KubeObject, finalizers: string[]): Promise<void> {
  const { namespace, name, resourceVersion } = identity(obj);
  await http.json('PATCH', objectPath(resource, namespace, name), {
    contentType: mergePatch,
    body: { metadata: { resourceVersion, finalizers } },
  });
}
