// A user who holds only the named verbs on one resource in one namespace, as a platform team grants
// tenants: a Role and its RoleBinding named after the user.
import { kubectlOk } from './kubectl.ts';

export async function grantOnly(admin: string, namespace: string, user: string, resource: string, verbs: readonly string[]): Promise<void> {
  const role = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: ${user}, namespace: ${namespace}}
rules: [{apiGroups: [coder.com], resources: [${resource}], verbs: [${verbs.join(', ')}]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ${user}, namespace: ${namespace}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${user}}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ${user}}]
`;
  await kubectlOk(admin, ['apply', '-f', '-'], role);
}
