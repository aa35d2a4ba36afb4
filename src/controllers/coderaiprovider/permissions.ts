// RBAC of the CoderAIProvider: the provider object, its control plane and its credential Secrets (read only).
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coder.com'], resources: ['coderaiproviders'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['coderaiproviders/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['coderaiproviders/finalizers'], verbs: ['update'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
];
