// list: the objects of one namespace, or of every namespace served, picked by label and field selectors.
import type { AggregatedObject } from '../../../../generated/aggregated/types.ts';
import { badRequest, groupVersion } from '../../status.ts';
import { partialMetadata, type Rendering } from '../negotiation.ts';
import { sendJson } from '../response.ts';
import { fieldSelector, labelSelector, listOptionsError, type Selector } from '../selectors.ts';
import { table } from '../table.ts';
import type { ResourceRequest } from './resource-request.ts';

/** A list resourceVersion: never empty or "0", so reflectors and `kubectl get -w` can start a watch. */
export const listVersion = () => String(Date.now());

export async function serveList(request: ResourceRequest, rendering: Rendering): Promise<void> {
  sendList(request, await listSelected(request), rendering);
}

/** What the query's labelSelector and fieldSelector pick; 400 when its list options do not decode, as kube-apiserver's list handler. */
export function selectorOf(q: URLSearchParams): Selector {
  const undecodable = listOptionsError(q);
  if (undecodable) throw badRequest(undecodable);
  const labels = labelSelector(q.get('labelSelector'));
  const fields = fieldSelector(q.get('fieldSelector'));
  return (o) => labels(o) && fields(o);
}

/** The objects the selectors pick; across namespaces, those of every active namespace served, by namespace and name. */
export async function listSelected({ storage, query, attributes, deps }: ResourceRequest): Promise<AggregatedObject[]> {
  const select = selectorOf(query);
  const { namespace } = attributes;
  if (namespace) return (await storage.list(namespace)).filter(select);
  const all: AggregatedObject[] = [];
  for (const ns of deps.servedNamespaces()) {
    if ((await deps.namespaces.state(ns)) !== 'active') continue;
    all.push(...(await storage.list(ns)));
  }
  return all
    .filter(select)
    .sort((a, b) => a.metadata.namespace.localeCompare(b.metadata.namespace) || a.metadata.name.localeCompare(b.metadata.name));
}

export function sendList({ res, storage, query }: ResourceRequest, items: AggregatedObject[], rendering: Rendering): void {
  const resourceVersion = listVersion();
  if (rendering.as === 'table')
    return sendJson(
      res,
      200,
      table(items, {
        version: rendering.version,
        kind: storage.names.kind,
        includeObject: query.get('includeObject'),
        noHeaders: false,
        resourceVersion,
      }),
    );
  if (rendering.as === 'metadata')
    return sendJson(res, 200, {
      kind: 'PartialObjectMetadataList',
      apiVersion: `meta.k8s.io/${rendering.version}`,
      metadata: { resourceVersion },
      items: items.map((o) => partialMetadata(o, rendering.version)),
    });
  sendJson(res, 200, { kind: storage.names.listKind, apiVersion: groupVersion, metadata: { resourceVersion }, items });
}
