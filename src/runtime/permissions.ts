// RBAC of the runtime itself: the leader-election Lease and the Events it records.
import type { Permission } from './rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'update'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];
