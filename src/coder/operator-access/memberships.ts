// The operator user is a member of every organization that is not deleted, with the organization roles it
// is given (none while it is owner, which covers every organization): membership is what Coder requires of
// a workspace's or a resource's owner within an organization.
import type { Queryable } from './queryable.ts';
import { OperatorAccessError } from './errors.ts';

/** Returns how many organizations the user is now a member of; rows that already match are not written. */
export async function ensureOrganizationMemberships(db: Queryable, userId: string, now: Date, roles: string[]): Promise<number> {
  const organizations = await db.query<{ id: string }>('SELECT id FROM organizations WHERE deleted = false ORDER BY id');
  if (organizations.rows.length === 0) {
    throw new OperatorAccessError(
      'NoOrganization',
      "Coder's database has no organization that is not deleted: Coder's migrations, which run when Coder starts, " +
        'create its default organization, so start Coder on this database; the operator retries on its own',
    );
  }
  await db.query(
    `INSERT INTO organization_members (organization_id, user_id, created_at, updated_at, roles)
     SELECT org, $1, $2, $2, $3::text[] FROM unnest($4::uuid[]) AS org
      WHERE NOT EXISTS (SELECT 1 FROM organization_members m
                         WHERE m.organization_id = org AND m.user_id = $1 AND m.roles IS NOT DISTINCT FROM $3::text[])
     ON CONFLICT (organization_id, user_id)
     DO UPDATE SET updated_at = EXCLUDED.updated_at, roles = EXCLUDED.roles`,
    [userId, now, roles, organizations.rows.map((row) => row.id)],
  );
  return organizations.rows.length;
}
