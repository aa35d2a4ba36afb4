// RBAC of the aggregated API server: the namespace check before every call (terminating namespaces),
// and the caBundle of its own APIService. TokenReview, SubjectAccessReview, the
// extension-apiserver-authentication ConfigMap and the serving certificate Secret are granted elsewhere.
import type { Permission } from '../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], scope: 'cluster' },
  {
    apiGroups: ['apiregistration.k8s.io'],
    resources: ['apiservices'],
    // list and watch by field selector metadata.name, which RBAC matches against resourceNames.
    verbs: ['get', 'list', 'patch', 'watch'],
    resourceNames: ['v1alpha1.aggregation.coder.com'],
    scope: 'cluster',
  },
];
