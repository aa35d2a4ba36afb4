// Stage: config/rbac/editor_viewer_roles.yaml, an editor and a viewer ClusterRole per CRD kind for the people
// who use the operator. Their aggregation labels add them to the built-in admin, edit and view ClusterRoles
// (the clusterrole-aggregation controller of kube-controller-manager fills those), so binding `edit` or `view`
// in a namespace covers coder.com objects too. Only the kind and its status: no Secrets, no other resource.
import { stringify } from 'yaml';
import type { KindSource } from './load.ts';

export const kindRolesPath = 'config/rbac/editor_viewer_roles.yaml';

const editorVerbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const viewerVerbs = ['get', 'list', 'watch'];
const aggregateTo = (role: 'admin' | 'edit' | 'view') => `rbac.authorization.k8s.io/aggregate-to-${role}`;

export function kindRoleName(kind: KindSource, role: 'editor' | 'viewer'): string {
  return `coder-k8s-${kind.kind.toLowerCase()}-${role}`;
}

function kindRole(kind: KindSource, role: 'editor' | 'viewer'): object {
  const aggregation =
    role === 'editor' ? { [aggregateTo('admin')]: 'true', [aggregateTo('edit')]: 'true' } : { [aggregateTo('view')]: 'true' };
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: kindRoleName(kind, role), labels: { 'app.kubernetes.io/name': 'coder-k8s', ...aggregation } },
    rules: [
      { apiGroups: [kind.group], resources: [kind.names.plural], verbs: role === 'editor' ? editorVerbs : viewerVerbs },
      // Every CRD this project generates has the status subresource (crd.ts).
      { apiGroups: [kind.group], resources: [`${kind.names.plural}/status`], verbs: ['get'] },
    ],
  };
}

/** Editor then viewer of each kind, kinds in the order of their names. */
export function kindRolesYaml(kinds: KindSource[]): string {
  return [...kinds]
    .sort((a, b) => a.kind.localeCompare(b.kind))
    .flatMap((kind) => [kindRole(kind, 'editor'), kindRole(kind, 'viewer')])
    .map((role) => stringify(role, { lineWidth: 0 }))
    .join('---\n');
}
