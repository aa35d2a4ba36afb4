// RBAC of the runtime itself: the leader-election Lease, the Events it records, and the reviews that
// check who may read the metrics endpoint.
import type { Permission } from './rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'update'], scope: 'operator-namespace' },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'], scope: 'cluster' },
  { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'], scope: 'cluster' },
];
