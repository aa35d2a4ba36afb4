// The checks of a written object's metadata that the Go generic handler makes before storage
// (k8s.io/apiserver's rest.BeforeCreate and rest.BeforeUpdate): the name, the namespace of the request, and on update the resourceVersion read.
import type { AggregatedObject } from '../../../generated/aggregated/types.ts';
import { badRequest, conflict } from '../status.ts';
import type { WrittenObject } from './storage.ts';

/** The checks the Go generic handler makes before storage on create. */
export function checkCreateMeta(body: WrittenObject, namespace: string): string {
  const name = body?.metadata?.name;
  if (typeof name !== 'string' || name === '') throw badRequest('metadata.name must not be empty');
  const ns = body.metadata?.namespace;
  if (ns && ns !== namespace) throw badRequest(`metadata.namespace "${ns}" must match request namespace "${namespace}"`);
  return name;
}

/** Name, namespace and resourceVersion checks of an update. */
export function checkUpdateMeta(body: WrittenObject, namespace: string, name: string, current: AggregatedObject): void {
  const bodyName = body?.metadata?.name;
  if (bodyName && bodyName !== name) throw badRequest(`updated object metadata.name "${bodyName}" must match request name "${name}"`);
  const ns = body?.metadata?.namespace;
  if (ns && ns !== namespace) throw badRequest(`metadata.namespace "${ns}" does not match request namespace "${namespace}"`);
  const rv = body?.metadata?.resourceVersion;
  if (!rv) throw badRequest('metadata.resourceVersion is required for update');
  if (rv !== current.metadata.resourceVersion)
    throw conflict(`resource version mismatch: got "${rv}", current is "${current.metadata.resourceVersion}"`);
}
