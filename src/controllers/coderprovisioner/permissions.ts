// RBAC of the CoderProvisioner: its Deployment, ServiceAccount, Role/RoleBinding and provisioner key Secret, and the
// control plane it belongs to.
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coder.com'], resources: ['coderprovisioners'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['coderprovisioners/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['coderprovisioners/finalizers'], verbs: ['update'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['roles', 'rolebindings'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  },
];
