// The coder-k8s-operator user: found case-insensitively among non-deleted users or created, then its
// attributes enforced, so a hand edit in Coder is undone. A user of that name that the operator did not
// create is never adopted: see isOperatorCreated.
import { randomUUID } from 'node:crypto';
import type { Queryable } from './queryable.ts';
import { OperatorAccessError } from './errors.ts';

export const operatorUsername = 'coder-k8s-operator';
export const operatorEmail = 'coder-k8s-operator@coder-k8s.invalid';
/**
 * The operator's mark on its own user, in users.hashed_password: the four bytes of the word "none". Coder
 * writes that column only with a hash of its own format ("$pbkdf2-sha256$…", coderd/userpassword) or with
 * nothing (a user without a password: coderd/users.go, the login-type change in queries/users.sql), in
 * every release from v2.24.0 to v2.36.0, so no sign-up, single sign-on or Coder API call can produce it; and
 * no password matches it. Earlier versions and the Go original wrote the same bytes, so their user carries
 * the mark too.
 */
export const operatorPasswordMark = Buffer.from('none', 'utf8');
/**
 * login_type 'none': Coder lets nobody log in as such a user or give it a password (coderd/userauth.go,
 * coderd/users.go putUserPassword: password users only), so only its API tokens reach it. Coder v2.36.0's
 * migration 000555 turns 'none' into 'password' for users that are neither system users nor service
 * accounts; the operator sets it back on its next reconcile, and the mark keeps the user recognised meanwhile.
 */
const operatorLoginType = 'none';

interface UserRow {
  id: string;
  marked: boolean;
}

/**
 * Whether the operator created this user: it carries the mark. A user that appeared any other way does not,
 * and keeps its own password, links and API keys, so adopting it would hand an owner role to whoever
 * controls it.
 */
export function isOperatorCreated(row: UserRow): boolean {
  return row.marked === true;
}

export function foreignUserMessage(): string {
  return (
    `a Coder user named ${operatorUsername} exists that the operator did not create (it signed up, came from single ` +
    'sign-on, was made through the Coder API or was given a password there), so the operator does not use it: delete that user in Coder ' +
    '(or rename it, if it belongs to a person); the operator then creates its own user and retries on its own'
  );
}

export async function findOperatorUser(db: Queryable): Promise<UserRow | undefined> {
  const found = await db.query<UserRow>(
    `SELECT id, hashed_password = $2 AS marked FROM users
      WHERE deleted = false AND lower(username) = lower($1) ORDER BY created_at LIMIT 1`,
    [operatorUsername, operatorPasswordMark],
  );
  return found.rows[0];
}

/**
 * Returns the operator user's id; writes only when the user is missing or differs from what the operator
 * wants. The user is an ordinary one (is_system = false), so Coder lists it to its admins; a user an
 * earlier version made as a system user (is_system = true, hidden) is turned into one. Why: the docs,
 * "The operator's Coder user".
 */
export async function ensureOperatorUser(db: Queryable, now: Date, siteRoles: string[]): Promise<string> {
  const found = await findOperatorUser(db);
  if (found === undefined) {
    const id = randomUUID();
    await db.query(
      `INSERT INTO users (id, email, username, name, hashed_password, created_at, updated_at,
                          rbac_roles, login_type, status, is_system)
       VALUES ($1, $2, $3, $3, $4, $5, $5, $6::text[], $7::login_type, 'active', false)`,
      [id, operatorEmail, operatorUsername, operatorPasswordMark, now, siteRoles, operatorLoginType],
    );
    return id;
  }
  if (!isOperatorCreated(found)) throw new OperatorAccessError('UserNotCreatedByOperator', foreignUserMessage());
  // The WHERE clause makes an unchanged user a no-op: no new row version, no trigger, no WAL.
  await db.query(
    `UPDATE users
        SET email = $2, name = $3, updated_at = $4, rbac_roles = $5::text[], login_type = $6::login_type, status = 'active',
            is_system = false
      WHERE id = $1
        AND (email IS DISTINCT FROM $2 OR name IS DISTINCT FROM $3 OR rbac_roles IS DISTINCT FROM $5::text[]
             OR login_type <> $6::login_type OR status <> 'active' OR is_system)`,
    [found.id, operatorEmail, operatorUsername, now, siteRoles, operatorLoginType],
  );
  return found.id;
}
