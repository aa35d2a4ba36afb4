// RBAC of the CoderAIGatewayKey: the key object, its control plane, and the destination Secrets it writes the key to.
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coder.com'], resources: ['coderaigatewaykeys'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['coderaigatewaykeys/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['coderaigatewaykeys/finalizers'], verbs: ['update'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'get', 'list', 'watch', 'update', 'patch'] },
];
