// The operator user is organization-admin in every organization that is not deleted.
import type { Queryable } from './connection.ts';
import { OperatorAccessError } from './errors.ts';

export const organizationRole = 'organization-admin';

/** Returns how many organizations the user is now a member of. */
export async function ensureOrganizationAdmin(db: Queryable, userId: string, now: Date): Promise<number> {
  const organizations = await db.query<{ id: string }>('SELECT id FROM organizations WHERE deleted = false ORDER BY id');
  if (organizations.rows.length === 0) {
    throw new OperatorAccessError(
      'NoOrganization',
      "Coder's database has no organization that is not deleted: Coder creates its default organization when it " +
        'first starts, so start Coder on this database; the operator retries on its own',
    );
  }
  await db.query(
    `INSERT INTO organization_members (organization_id, user_id, created_at, updated_at, roles)
     SELECT org, $1, $2, $2, ARRAY[$3]::text[] FROM unnest($4::uuid[]) AS org
     ON CONFLICT (organization_id, user_id)
     DO UPDATE SET updated_at = EXCLUDED.updated_at, roles = EXCLUDED.roles`,
    [userId, now, organizationRole, organizations.rows.map((row) => row.id)],
  );
  return organizations.rows.length;
}
