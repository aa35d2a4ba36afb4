// RBAC of the CoderWorkspaceProxy: its Deployment, Service and proxy token Secret, the Secrets it checks and
// the control planes it registers through.
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coder.com'], resources: ['coderworkspaceproxies'], verbs: ['list', 'watch', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['coderworkspaceproxies/status'], verbs: ['patch'] },
  // Children carry blockOwnerDeletion, which the API server allows only to who may update the owner's finalizers.
  { apiGroups: ['coder.com'], resources: ['coderworkspaceproxies/finalizers'], verbs: ['update'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['list', 'watch'] },
  // get: a child missing from the cache whose create-only apply meets an object (409) is read, to tell ours from a
  // foreign one; the generated token Secret missing from the cache is read, so no second token is issued.
  { apiGroups: [''], resources: ['secrets', 'services'], verbs: ['create', 'get', 'list', 'patch', 'watch'] },
  // delete: a Deployment whose pods still reference a Secret that lost its credential marks.
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] },
];
