// The verbs of a resource (not of a subresource): the checks every verb shares (verbs served, Accept, dry
// run, a namespace being deleted), then the handler of the verb.
import { ApiStatusError, badRequest, forbidden, group, methodNotAllowed } from '../../status.ts';
import { negotiate } from '../negotiation.ts';
import { serveCreate } from './create.ts';
import { serveDelete } from './delete.ts';
import { serveGet } from './get.ts';
import { sendList, serveList } from './list.ts';
import { servePatch } from './patch.ts';
import type { ResourceRequest } from './resource-request.ts';
import { serveUpdate } from './update.ts';
import { serveWatch, streamWatch, watchScope } from './watch.ts';

export async function serveResource(request: ResourceRequest): Promise<void> {
  const { req, storage, query: q } = request;
  const { namespace, verb } = request.attributes;
  if (storage.verbs && !storage.verbs.includes(verb)) throw methodNotAllowed(req.method ?? '');
  const rendering = negotiate(req.headers.accept);
  if (q.get('dryRun') && ['create', 'update', 'patch', 'delete'].includes(verb))
    throw badRequest(`server-side dry-run is not supported by ${storage.names.plural}.${group}; nothing was changed`);
  // Not offered (a namespace deletion must never remove Coder's objects in bulk): 405 makes the namespace
  // controller fall back to listing, which is empty while the namespace terminates.
  if (verb === 'deletecollection') throw methodNotAllowed('DELETE');
  if (namespace) {
    const state = await request.deps.namespaces.state(namespace);
    if (state !== 'active') {
      // The namespace controller lists everything and deletes what it finds: it must find nothing.
      if (verb === 'list') return sendList(request, [], rendering);
      if (verb === 'watch') return streamWatch(request, rendering, watchScope(request), []);
      if (state === 'missing')
        throw new ApiStatusError(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });
      if (verb === 'delete')
        throw forbidden(
          `namespace "${namespace}" is being deleted: ${storage.names.plural} are not deleted with it (Coder keeps them); delete them before, or in Coder`,
        );
    }
  }
  switch (verb) {
    case 'list':
      return serveList(request, rendering);
    case 'watch':
      return serveWatch(request, rendering);
    case 'get':
      return serveGet(request, rendering);
    case 'create':
      return serveCreate(request, rendering);
    case 'update':
      return serveUpdate(request, rendering);
    case 'patch':
      return servePatch(request, rendering);
    case 'delete':
      return serveDelete(request);
    default:
      throw methodNotAllowed(req.method ?? '');
  }
}
