// RBAC the MCP server (--app=mcp-http) needs beyond the controllers': it runs as the operator's
// ServiceAccount, and reads these only after a SubjectAccessReview has allowed the caller (--mcp-as).
import type { Permission } from '../runtime/rbac-permission.ts';

export const permissions: Permission[] = [
  { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
  { apiGroups: [''], resources: ['events'], verbs: ['list'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
  { apiGroups: [''], resources: ['services', 'secrets'], verbs: ['get'] },
  { apiGroups: [''], resources: ['namespaces'], verbs: ['list'], scope: 'cluster' },
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] },
  { apiGroups: ['coder.com'], resources: ['codercontrolplanes'], verbs: ['get', 'list'] },
  { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'], scope: 'cluster' },
];
