// RBAC of the CoderTemplateTest controller, exactly what it uses (its integration suite checks the audit log):
// the tests from the cache, their finalizer and status by merge patch, their deletion after the TTL; the
// control plane and its operator token Secret from the cache. It never creates a test.
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coder.com'], resources: ['codertemplatetests'], verbs: ['list', 'watch', 'patch', 'delete'] },
  { apiGroups: ['coder.com'], resources: ['codertemplatetests/status'], verbs: ['patch'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] },
];
