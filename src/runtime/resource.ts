// What the runtime needs to know of a kind to list, watch and write it, and the API paths of it.
export interface ResourceKind {
  /** '' for the core group. */
  group: string;
  version: string;
  /** group/version, or just the version for the core group. */
  apiVersion: string;
  kind: string;
  listKind: string;
  plural: string;
  namespaced: boolean;
}

/** /api/v1[/namespaces/<ns>]/<plural> or /apis/<group>/<version>[/namespaces/<ns>]/<plural> */
export function collectionPath(resource: ResourceKind, namespace?: string): string {
  const root = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const scope = resource.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}${scope}/${resource.plural}`;
}

export function objectPath(resource: ResourceKind, namespace: string | undefined, name: string): string {
  return `${collectionPath(resource, namespace)}/${encodeURIComponent(name)}`;
}

function builtin(group: string, version: string, kind: string, plural: string, namespaced = true): ResourceKind {
  return { group, version, apiVersion: group ? `${group}/${version}` : version, kind, listKind: `${kind}List`, plural, namespaced };
}

/** The built-in kinds the operator reads or writes. */
export const builtinResources = {
  secret: builtin('', 'v1', 'Secret', 'secrets'),
  configMap: builtin('', 'v1', 'ConfigMap', 'configmaps'),
  service: builtin('', 'v1', 'Service', 'services'),
  serviceAccount: builtin('', 'v1', 'ServiceAccount', 'serviceaccounts'),
  namespace: builtin('', 'v1', 'Namespace', 'namespaces', false),
  deployment: builtin('apps', 'v1', 'Deployment', 'deployments'),
  role: builtin('rbac.authorization.k8s.io', 'v1', 'Role', 'roles'),
  roleBinding: builtin('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings'),
  ingress: builtin('networking.k8s.io', 'v1', 'Ingress', 'ingresses'),
  httpRoute: builtin('gateway.networking.k8s.io', 'v1', 'HTTPRoute', 'httproutes'),
  lease: builtin('coordination.k8s.io', 'v1', 'Lease', 'leases'),
  event: builtin('events.k8s.io', 'v1', 'Event', 'events'),
} as const;
