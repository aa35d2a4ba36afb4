// The shape of an RBAC rule that the runtime and each controller declare next to their code; codegen collects every
// `export const permissions` from src/**/permissions.ts into config/rbac/role.yaml (every namespace), and
// by scope into config/components/namespaced/roles.yaml (the install for --watch-namespace).
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface Permission {
  /** '' is the core group. */
  apiGroups: readonly string[];
  resources: readonly string[];
  verbs: readonly Verb[];
  resourceNames?: readonly string[];
  /**
   * Where the namespaced install grants the rule: 'cluster' for cluster-scoped resources (a ClusterRoleBinding),
   * 'operator-namespace' for what lives only in the operator's own namespace (a Role there); unset, in each
   * watched namespace (a RoleBinding per namespace). test/integration/namespaced-install.test.ts checks the
   * scopes against the API server's discovery.
   */
  scope?: 'cluster' | 'operator-namespace';
}
