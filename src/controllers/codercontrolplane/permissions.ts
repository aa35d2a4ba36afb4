// RBAC of the CoderControlPlane: its children (ServiceAccount, workspace RBAC, Deployment, Service, Ingress or
// HTTPRoute), the database, license and operator token Secrets, and the envFrom sources it reads.
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['list', 'watch', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes/status'], verbs: ['patch'] },
  // Children carry blockOwnerDeletion, which the API server allows only to who may update the owner's finalizers.
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes/finalizers'], verbs: ['update'] },
  // The objects that call owner-only Coder APIs through a control plane: the operator user's roles follow them.
  {
    apiGroups: ['coder.com'],
    resources: ['coderworkspaceproxies', 'codertemplatetests', 'coderaiproviders', 'coderaigatewaykeys', 'codermcpservers'],
    verbs: ['list', 'watch'],
  },
  // get: envFrom Secrets are read live (CODER_ACCESS_URL); delete: the operator token Secret when access is turned off.
  { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] },
  // get: a child missing from the cache whose create-only apply meets an object (409) is read, to tell ours from a foreign one.
  { apiGroups: [''], resources: ['serviceaccounts', 'services'], verbs: ['create', 'get', 'list', 'patch', 'watch'] },
  // get: envFrom ConfigMaps are read live (CODER_ACCESS_URL); list, watch: their metadata, so a change reconciles at once.
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
  // Whether a workspace namespace consents to the control plane's workspace RBAC (its label and annotation).
  { apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'], scope: 'cluster' },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['roles', 'rolebindings'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'],
  },
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] },
  // list, watch: a deleted or edited HTTPRoute is put back at once (once the Gateway API CRDs are installed).
  {
    apiGroups: ['gateway.networking.k8s.io'],
    resources: ['httproutes'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'],
  },
  // The workspace Role grants these (deployments are also a child); Kubernetes lets a subject grant only what it holds itself.
  {
    apiGroups: [''],
    resources: ['pods', 'persistentvolumeclaims'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  },
  {
    apiGroups: ['apps'],
    resources: ['deployments'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  },
];
