// The Coder roles the operator user holds: the site role owner where a control plane's objects need it,
// otherwise organization-admin in every organization. Coder stores bare role names, site roles in
// users.rbac_roles and organization roles in organization_members.roles, and adds member and
// organization-member to every user and membership itself (coderd/database/queries/users.sql,
// GetAuthorizationUserRoles), so neither is written here.
import { OperatorAccessError } from './errors.ts';

export interface OperatorRoles {
  /** users.rbac_roles. */
  site: string[];
  /** organization_members.roles, the same in every organization. */
  organization: string[];
}

/**
 * Licenses, workspace proxies, the AI kinds and template tests (coderd/rbac/roles.go ownerRole;
 * coderd/workspacebuilds.go checks for the owner role by name). Owner covers every organization.
 */
export const ownerRoles: OperatorRoles = { site: ['owner'], organization: [] };

/** Provisioner keys, the aggregated API and the MCP tools: templates, files and workspaces of every member (coderd/rbac/roles.go orgAdmin). */
export const organizationAdminRoles: OperatorRoles = { site: [], organization: ['organization-admin'] };

/** Role names of Coder v2.24.0 to v2.36.0 (coderd/rbac/roles.go); anything else Coder would drop or refuse. */
const siteRoleNames = new Set(['owner', 'template-admin', 'user-admin', 'auditor']);
const organizationRoleNames = new Set([
  'organization-admin',
  'organization-auditor',
  'organization-user-admin',
  'organization-template-admin',
]);

export function requireRoles(roles: OperatorRoles | undefined): OperatorRoles {
  const chosen = roles ?? ownerRoles;
  const unknown = [
    ...chosen.site.filter((r) => !siteRoleNames.has(r)),
    ...chosen.organization.filter((r) => !organizationRoleNames.has(r)),
  ];
  if (unknown.length) throw new OperatorAccessError('Invalid', `the operator user's roles name no Coder role: ${unknown.join(', ')}`);
  return { site: [...new Set(chosen.site)].sort(), organization: [...new Set(chosen.organization)].sort() };
}
