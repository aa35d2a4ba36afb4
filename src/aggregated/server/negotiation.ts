// What the caller's Accept header asks for: the objects as JSON, a Table for
// `kubectl get` (table.ts), or PartialObjectMetadata for the metadata clients of kube-controller-manager.
import type { AggregatedObject } from '../../../generated/aggregated/types.ts';
import { ApiStatusError } from '../status.ts';

export type Rendering = { as: 'object' } | { as: 'table'; version: 'v1' | 'v1beta1' } | { as: 'metadata'; version: 'v1' | 'v1beta1' };

/** The first Accept entry this server can serve; 406 when none. */
export function negotiate(accept: string | undefined): Rendering {
  if (!accept) return { as: 'object' };
  for (const entry of accept.split(',')) {
    const [type, ...paramList] = entry.split(';').map((s) => s.trim());
    const params = Object.fromEntries(paramList.map((p) => p.split('=').map((s) => s.trim()) as [string, string]));
    if (!['application/json', 'application/*', '*/*'].includes(type!.toLowerCase())) continue;
    if (!params.as) return { as: 'object' };
    if (params.g !== 'meta.k8s.io' || (params.v !== 'v1' && params.v !== 'v1beta1')) continue;
    if (params.as === 'Table') return { as: 'table', version: params.v };
    if (params.as === 'PartialObjectMetadata' || params.as === 'PartialObjectMetadataList') return { as: 'metadata', version: params.v };
  }
  throw new ApiStatusError(
    406,
    'NotAcceptable',
    `only application/json (objects, Table, PartialObjectMetadata) is served; Accept was "${accept}"`,
  );
}

export function partialMetadata(obj: AggregatedObject, version: string): object {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}
