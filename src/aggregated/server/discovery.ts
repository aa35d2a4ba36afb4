// Discovery (reference R11, R12): /apis, the group, and the version's resource list, as plain JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Storage } from '../storage/storage.ts';
import { ApiStatusError, group, groupVersion, version } from '../status.ts';
import { sendJson } from './response.ts';

const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

export function apiGroup(): object {
  const v = { groupVersion, version };
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: [v], preferredVersion: v };
}

export function apiGroupList(): object {
  const { kind: _, apiVersion: __, ...g } = apiGroup() as Record<string, unknown>;
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [g] };
}

export function apiResourceList(storages: Storage[]): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: storages.flatMap((s) => [
      { name: s.names.plural, singularName: s.names.singular, namespaced: true, kind: s.names.kind, verbs: s.verbs ?? verbs },
      ...Object.entries(s.subresources ?? {}).map(([sub, { verb, kind }]) => ({
        name: `${s.names.plural}/${sub}`,
        singularName: '',
        namespaced: true,
        kind,
        verbs: [verb],
      })),
    ]),
  };
}

/** Whether Accept allows a plain JSON document (not only the aggregated discovery kinds). */
function acceptsPlainJson(accept: string): boolean {
  if (!accept) return true;
  return accept.split(',').some((entry) => {
    const e = entry.trim();
    return /^(application\/json|application\/\*|\*\/\*)\s*(;|$)/.test(e) && !/;\s*as=/.test(e);
  });
}

export function serveDiscovery(req: IncomingMessage, res: ServerResponse, doc: 'apis' | 'group' | 'version', storages: Storage[]): void {
  const accept = req.headers.accept ?? '';
  // Aggregated discovery (apidiscovery.k8s.io) is not served: the aggregator falls back to these documents.
  if (doc === 'apis' && !acceptsPlainJson(accept))
    throw new ApiStatusError(406, 'NotAcceptable', 'aggregated discovery is not served; ask for application/json');
  sendJson(res, 200, doc === 'apis' ? apiGroupList() : doc === 'group' ? apiGroup() : apiResourceList(storages));
}
