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
  /**
   * A cache of it lists and watches PartialObjectMetadata: it holds each object's metadata only (metadataOf).
   * Writes and live reads are unaffected.
   */
  metadataOnly?: boolean;
  /**
   * Served only when an optional CRD is installed (the Gateway API's HTTPRoute): a cache of it is empty and
   * synced while it is not, and starts watching once it is (informer.ts servedOptionally).
   */
  servedOptionally?: boolean;
}

/**
 * The kind as a metadata-only cache sees it: for watches on objects whose content a reconcile reads live
 * (or not at all), so that memory holds names, labels and versions, not the data of every object of the kind.
 */
export function metadataOf(resource: ResourceKind): ResourceKind {
  return { ...resource, metadataOnly: true };
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
  httpRoute: { ...builtin('gateway.networking.k8s.io', 'v1', 'HTTPRoute', 'httproutes'), servedOptionally: true },
  lease: builtin('coordination.k8s.io', 'v1', 'Lease', 'leases'),
  event: builtin('events.k8s.io', 'v1', 'Event', 'events'),
} as const;
