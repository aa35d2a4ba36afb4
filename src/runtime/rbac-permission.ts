// The shape of an RBAC rule that the runtime and each controller declare next to their code; codegen collects every
// `export const permissions` from src/**/permissions.ts into config/rbac/role.yaml.
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface Permission {
  /** '' is the core group. */
  apiGroups: readonly string[];
  resources: readonly string[];
  verbs: readonly Verb[];
  resourceNames?: readonly string[];
}
