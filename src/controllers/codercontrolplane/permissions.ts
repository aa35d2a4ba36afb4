// RBAC of the CoderControlPlane: its children (ServiceAccount, workspace RBAC, Deployment, Service, Ingress or
// HTTPRoute), the database, license and operator token Secrets, and the envFrom sources it reads.
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes/finalizers'], verbs: ['update'] },
  {
    apiGroups: [''],
    resources: ['secrets', 'serviceaccounts', 'services'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
  // Whether a workspace namespace consents to the control plane's workspace RBAC (its label and annotation).
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
  {
    apiGroups: ['apps'],
    resources: ['deployments'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['roles', 'rolebindings'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  },
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  {
    apiGroups: ['gateway.networking.k8s.io'],
    resources: ['httproutes'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  },
  // The workspace Role grants these; Kubernetes lets a subject grant only what it holds itself.
  {
    apiGroups: [''],
    resources: ['pods', 'persistentvolumeclaims'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  },
];
