// RBAC of the CoderProvisioner: its Deployment, ServiceAccount, Role/RoleBinding and provisioner key Secret, and the
// control plane it belongs to.
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  // get: a status write that meets a conflict is made again on the object read afresh (runtime/writer.ts), so the
  // id of a key Coder just made is not lost; patch: the finalizer.
  { apiGroups: ['coder.com'], resources: ['coderprovisioners'], verbs: ['get', 'list', 'watch', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['coderprovisioners/status'], verbs: ['patch'] },
  // Children carry blockOwnerDeletion, which the API server allows only to who may update the owner's finalizers.
  { apiGroups: ['coder.com'], resources: ['coderprovisioners/finalizers'], verbs: ['update'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['list', 'watch'] },
  // get: a child missing from the cache whose create-only apply meets an object (409) is read, to tell ours from a
  // foreign one, and a key Secret missing from the cache is read for its credential marks; create: apply of a new object.
  { apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['create', 'get', 'list', 'patch', 'watch'] },
  { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'get', 'list', 'patch', 'watch'] },
  // delete: a Deployment whose pods still reference a Secret that lost its credential marks.
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] },
  // The daemons' Role grants these; Kubernetes lets a subject grant only what it holds itself.
  {
    apiGroups: [''],
    resources: ['pods', 'persistentvolumeclaims'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  },
];
