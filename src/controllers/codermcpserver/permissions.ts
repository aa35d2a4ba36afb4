// RBAC of the CoderMCPServer: the MCP server object, its control plane and its credential Secrets (read only).
import type { Permission } from '../../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: ['coder.com'], resources: ['codermcpservers'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['codermcpservers/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: ['coder.com'], resources: ['codermcpservers/finalizers'], verbs: ['update'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
];
