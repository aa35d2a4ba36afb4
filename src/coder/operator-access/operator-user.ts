// The coder-k8s-operator user: found case-insensitively among non-deleted users or created, then its
// attributes enforced, so a hand edit in Coder is undone. A user of that name that the operator did not
// create is never adopted: see isOperatorCreated.
import { randomUUID } from 'node:crypto';
import type { Queryable } from './connection.ts';
import { OperatorAccessError } from './errors.ts';

export const operatorUsername = 'coder-k8s-operator';
export const operatorEmail = 'coder-k8s-operator@coder-k8s.invalid';
/** The one site role the operator's Coder calls need: see docs/how-to/deploy-controller.md, "The operator's Coder user". */
export const operatorSiteRoles = ['owner'];
/** Coder's marker for "no password": the bytes of the word, which no password hash equals. */
const noPassword = Buffer.from('none', 'utf8');

interface UserRow {
  id: string;
  is_system: boolean;
}

/**
 * The operator's mark on its own user is users.is_system = true, written when it creates the user (the
 * Go original wrote it too). No Coder API, sign-up or single sign-on can set it: a user that appeared
 * any other way has is_system = false and keeps its own API keys, so adopting it would hand an owner
 * role to whoever controls it.
 */
export function isOperatorCreated(row: UserRow): boolean {
  return row.is_system === true;
}

export function foreignUserMessage(): string {
  return (
    `a Coder user named ${operatorUsername} exists that the operator did not create (it signed up, came from single ` +
    'sign-on or was made through the Coder API), so the operator does not use it: delete that user in Coder ' +
    '(or rename it, if it belongs to a person); the operator then creates its own user and retries on its own'
  );
}

export async function findOperatorUser(db: Queryable): Promise<UserRow | undefined> {
  const found = await db.query<UserRow>(
    `SELECT id, is_system FROM users WHERE deleted = false AND lower(username) = lower($1) ORDER BY created_at LIMIT 1`,
    [operatorUsername],
  );
  return found.rows[0];
}

/** Returns the operator user's id; writes only when the user is missing or differs from what the operator wants. */
export async function ensureOperatorUser(db: Queryable, now: Date): Promise<string> {
  const found = await findOperatorUser(db);
  if (found === undefined) {
    const id = randomUUID();
    await db.query(
      `INSERT INTO users (id, email, username, name, hashed_password, created_at, updated_at,
                          rbac_roles, login_type, status, is_system)
       VALUES ($1, $2, $3, $3, $4, $5, $5, $6::text[], 'none', 'active', true)`,
      [id, operatorEmail, operatorUsername, noPassword, now, operatorSiteRoles],
    );
    return id;
  }
  if (!isOperatorCreated(found)) throw new OperatorAccessError('UserNotCreatedByOperator', foreignUserMessage());
  // The WHERE clause makes an unchanged user a no-op: no new row version, no trigger, no WAL.
  await db.query(
    `UPDATE users
        SET email = $2, name = $3, hashed_password = $4, updated_at = $5,
            rbac_roles = $6::text[], login_type = 'none', status = 'active'
      WHERE id = $1
        AND (email IS DISTINCT FROM $2 OR name IS DISTINCT FROM $3 OR hashed_password IS DISTINCT FROM $4
             OR rbac_roles IS DISTINCT FROM $6::text[] OR login_type <> 'none' OR status <> 'active')`,
    [found.id, operatorEmail, operatorUsername, noPassword, now, operatorSiteRoles],
  );
  return found.id;
}
