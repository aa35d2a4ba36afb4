// Discovery documents (reference R11, R12): /apis, the group, and the version's resource list.
import type { Storage } from '../storage/storage.ts';
import { group, groupVersion, version } from '../status.ts';

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
