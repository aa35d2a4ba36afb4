// RBAC of the CoderTemplateTest: the test objects themselves (deleted after their TTL), the control plane and its
// operator token Secret.
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coder.com'], resources: ['codertemplatetests'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete'] },
  { apiGroups: ['coder.com'], resources: ['codertemplatetests/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['codertemplatetests/finalizers'], verbs: ['update'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
];
