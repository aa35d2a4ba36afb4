// Discovery: /apis, the group, and the version's resource list, as plain JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { aggregatedResources } from '../../../generated/aggregated/resources.ts';
import { ApiStatusError, group, groupVersion, version } from '../status.ts';
import { sendJson } from './response.ts';

export function apiGroup(): object {
  const v = { groupVersion, version };
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: [v], preferredVersion: v };
}

export function apiGroupList(): object {
  const { kind: _, apiVersion: __, ...g } = apiGroup() as Record<string, unknown>;
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [g] };
}

/** The resources of the version, generated from schemas/aggregated/ (the storages serve the same). */
export function apiResourceList(): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: aggregatedResources.flatMap(({ names, namespaced, verbs, subresources }) => [
      { name: names.plural, singularName: names.singular, namespaced, kind: names.kind, verbs },
      ...Object.entries(subresources).map(([sub, { verb, kind }]) => ({
        name: `${names.plural}/${sub}`,
        singularName: '',
        namespaced,
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

export function serveDiscovery(req: IncomingMessage, res: ServerResponse, doc: 'apis' | 'group' | 'version'): void {
  const accept = req.headers.accept ?? '';
  // Aggregated discovery (apidiscovery.k8s.io) is not served: the aggregator falls back to these documents.
  if (doc === 'apis' && !acceptsPlainJson(accept))
    throw new ApiStatusError(406, 'NotAcceptable', 'aggregated discovery is not served; ask for application/json');
  sendJson(res, 200, doc === 'apis' ? apiGroupList() : doc === 'group' ? apiGroup() : apiResourceList());
}
