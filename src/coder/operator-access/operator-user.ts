// The coder-k8s-operator user: found case-insensitively among non-deleted users or created, then its
// attributes enforced on every call, so a hand edit in Coder is undone.
import { randomUUID } from 'node:crypto';
import type { Queryable } from './connection.ts';
import { OperatorAccessError } from './errors.ts';

export const operatorUsername = 'coder-k8s-operator';
export const operatorEmail = 'coder-k8s-operator@coder-k8s.invalid';
/** Coder's marker for "no password": the bytes of the word, which no password hash equals. */
const noPassword = Buffer.from('none', 'utf8');

export async function findOperatorUser(db: Queryable): Promise<string | undefined> {
  const found = await db.query<{ id: string }>(`SELECT id FROM users WHERE deleted = false AND lower(username) = lower($1) LIMIT 1`, [
    operatorUsername,
  ]);
  return found.rows[0]?.id;
}

/** Returns the operator user's id. */
export async function ensureOperatorUser(db: Queryable, now: Date): Promise<string> {
  let id = await findOperatorUser(db);
  if (id === undefined) {
    id = randomUUID();
    await db.query(
      `INSERT INTO users (id, email, username, name, hashed_password, created_at, updated_at,
                          rbac_roles, login_type, status, is_system)
       VALUES ($1, $2, $3, $3, $4, $5, $5, ARRAY['owner']::text[], 'none', 'active', true)`,
      [id, operatorEmail, operatorUsername, noPassword, now],
    );
  }
  const enforced = await db.query(
    `UPDATE users
        SET email = $2, name = $3, hashed_password = $4, updated_at = $5,
            rbac_roles = ARRAY['owner']::text[], login_type = 'none', status = 'active', is_system = true
      WHERE id = $1`,
    [id, operatorEmail, operatorUsername, noPassword, now],
  );
  if (enforced.rowCount !== 1) {
    throw new OperatorAccessError(
      'Failed',
      `enforcing the attributes of the Coder user ${operatorUsername} changed ${enforced.rowCount ?? 0} rows instead of 1: the operator retries on its own`,
    );
  }
  return id;
}
