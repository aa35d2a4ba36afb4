// The operator's named API key rows in api_keys: check a token against its row, or replace the row.
import { generateToken, hashSecret, splitToken } from './api-key.ts';
import type { Queryable } from './connection.ts';

export interface TokenOwner {
  userId: string;
  tokenName: string;
}

/**
 * When `token` is this user's key of this name (same id, same secret hash), stays valid past
 * `validUntil` and, if `notAfter` is given, expires no later than it, its expiry; otherwise undefined.
 */
export async function liveTokenExpiry(
  db: Queryable,
  owner: TokenOwner,
  token: string,
  validUntil: Date,
  notAfter?: Date,
): Promise<Date | undefined> {
  const parts = splitToken(token);
  if (parts === undefined) return undefined;
  const found = await db.query<{ expires_at: Date }>(
    `SELECT expires_at FROM api_keys
      WHERE id = $1 AND user_id = $2 AND login_type = 'token' AND token_name = $3
        AND hashed_secret = $4 AND expires_at > $5 AND ($6::timestamptz IS NULL OR expires_at <= $6)`,
    [parts.id, owner.userId, owner.tokenName, hashSecret(parts.secret), validUntil, notAfter ?? null],
  );
  return found.rows.length === 1 ? found.rows[0]!.expires_at : undefined;
}

/** Deletes every key of this name of this user and inserts a fresh one; returns the new token and its expiry. */
export async function replaceToken(
  db: Queryable,
  owner: TokenOwner,
  lifetimeSeconds: number,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  await db.query(`DELETE FROM api_keys WHERE user_id = $1 AND login_type = 'token' AND token_name = $2`, [owner.userId, owner.tokenName]);
  const key = generateToken();
  const expiresAt = new Date(now.getTime() + lifetimeSeconds * 1000);
  // Coder 2.27 replaced api_keys.scope (enum all/application_connect, default all) with scopes and
  // allow_list (coderd/database/dump.sql of each release); an older schema takes its default, all.
  const scoped = await hasScopesColumns(db);
  await db.query(
    `INSERT INTO api_keys (id, hashed_secret, user_id, last_used, expires_at, created_at, updated_at,
                           login_type, lifetime_seconds, ip_address, token_name${scoped ? ', scopes, allow_list' : ''})
     VALUES ($1, $2, $3, $4, $5, $4, $4, 'token', $6, '0.0.0.0', $7${scoped ? `, ARRAY['coder:all']::api_key_scope[], ARRAY['*:*']::text[]` : ''})`,
    [key.id, hashSecret(key.secret), owner.userId, now, expiresAt, lifetimeSeconds, owner.tokenName],
  );
  return { token: key.token, expiresAt };
}

/** Whether api_keys has the scopes and allow_list columns of Coder 2.27 and later. */
async function hasScopesColumns(db: Queryable): Promise<boolean> {
  const found = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'api_keys' AND column_name IN ('scopes', 'allow_list')`,
  );
  return found.rows[0]?.n === 2;
}

/** Deletes the keys of this name held by the user `username` (matched case-insensitively, not deleted). */
export async function deleteTokens(db: Queryable, username: string, tokenName: string): Promise<number> {
  const deleted = await db.query(
    `DELETE FROM api_keys
      WHERE login_type = 'token' AND token_name = $1
        AND user_id IN (SELECT id FROM users WHERE deleted = false AND lower(username) = lower($2))`,
    [tokenName, username],
  );
  return deleted.rowCount ?? 0;
}
