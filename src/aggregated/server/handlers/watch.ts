// watch: the writes made through this server from now on (storage watch hubs; no replay), of the objects the
// selectors pick; with sendInitialEvents=true, the list first and a bookmark at its end. A watch without
// timeoutSeconds ends after 30 to 60 minutes, as kube-apiserver's MinRequestTimeout.
import type { AggregatedObject } from '../../../../generated/aggregated/types.ts';
import { badRequest, groupVersion, methodNotAllowed } from '../../status.ts';
import { partialMetadata, type Rendering } from '../negotiation.ts';
import { exactName, type Selector } from '../selectors.ts';
import { table } from '../table.ts';
import { listSelected, listVersion, selectorOf } from './list.ts';
import type { ResourceRequest } from './resource-request.ts';

const minWatchSeconds = 1800;

export async function serveWatch(request: ResourceRequest, rendering: Rendering): Promise<void> {
  const scope = watchScope(request);
  const initial = request.query.get('sendInitialEvents') === 'true' ? (await listSelected(request)).filter(scope) : undefined;
  streamWatch(request, rendering, scope, initial);
}

/**
 * What a watch may see: the objects its selectors pick, and of the `/watch/` form of an item path only that
 * item; a field selector there must require the same name, as kube-apiserver's watch handler demands.
 */
export function watchScope(request: ResourceRequest): Selector {
  const select = selectorOf(request.query);
  const { name } = request.attributes;
  if (!request.watchPath || !name) return select;
  const fieldSelector = request.query.get('fieldSelector');
  if (fieldSelector && exactName(fieldSelector) !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
  return (o) => o.metadata.name === name && select(o);
}

/** The watch's events as they come, until its timeout or until the client goes away. */
export function streamWatch(
  request: ResourceRequest,
  rendering: Rendering,
  select: Selector,
  initial: AggregatedObject[] | undefined,
): void {
  const { req, res, storage, query: q } = request;
  const { namespace } = request.attributes;
  if (!storage.watch) throw methodNotAllowed(req.method ?? '');
  if (q.get('resourceVersionMatch') && q.get('sendInitialEvents') !== 'true')
    throw badRequest('resourceVersionMatch is only supported with sendInitialEvents=true on this watch endpoint');
  const timeoutSeconds = Number(q.get('timeoutSeconds')) || minWatchSeconds * (1 + Math.random());
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  let first = true;
  const encode = (obj: AggregatedObject): unknown => {
    if (rendering.as === 'metadata') return partialMetadata(obj, rendering.version);
    if (rendering.as !== 'table') return obj;
    const t = table([obj], {
      version: rendering.version,
      kind: storage.names.kind,
      includeObject: q.get('includeObject'),
      noHeaders: !first,
    });
    first = false;
    return t;
  };
  const send = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
  for (const obj of initial ?? []) send('ADDED', encode(obj));
  if (initial) {
    send('BOOKMARK', {
      kind: rendering.as === 'metadata' ? 'PartialObjectMetadata' : storage.names.kind,
      apiVersion: rendering.as === 'metadata' ? `meta.k8s.io/${rendering.version}` : groupVersion,
      metadata: { resourceVersion: listVersion(), annotations: { 'k8s.io/initial-events-end': 'true' } },
    });
  }
  const unsubscribe = storage.watch((type, obj) => {
    if (namespace && obj.metadata.namespace !== namespace) return;
    if (!select(obj)) return;
    send(type, encode(obj));
  });
  const end = () => {
    clearTimeout(timer);
    unsubscribe();
    res.end();
  };
  const timer = setTimeout(end, timeoutSeconds * 1000);
  req.on('close', end);
  res.on('close', () => {
    clearTimeout(timer);
    unsubscribe();
  });
}
