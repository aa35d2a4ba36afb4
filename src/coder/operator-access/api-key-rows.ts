// The operator's named API key rows in api_keys: check a token against its row, or replace the row.
import { generateToken, hashSecret, splitToken } from './api-key.ts';
import type { Queryable } from './queryable.ts';
import type { CoderSchema } from './schema.ts';

export interface TokenOwner {
  userId: string;
  tokenName: string;
}

export interface LiveTokenBounds {
  /** The token must stay valid past this instant. */
  validUntil: Date;
  /** The token may not expire later than this (a fresh token's expiry): a longer-lived one is replaced. */
  notAfter?: Date;
  /**
   * The operator's own limit on a token's life, counted from its row's created_at: the token counts as
   * expiring at created_at + this, or at Coder's expires_at if that is sooner. Coder up to at least v2.30.0
   * moves a token's expires_at to now + lifetime_seconds whenever it is used an hour or more into its life
   * (coderd/httpmw/apikey.go, the expiry refresh; v2.36.0 exempts login_type token), so a token the operator
   * uses would otherwise never come due.
   */
  lifetimeSeconds?: number;
}

/**
 * When `token` is this user's key of this name (same id, same secret hash) and lives past
 * `bounds.validUntil` within the bounds, when it expires as the operator counts it; otherwise undefined.
 */
export async function liveTokenExpiry(db: Queryable, owner: TokenOwner, token: string, bounds: LiveTokenBounds): Promise<Date | undefined> {
  const parts = splitToken(token);
  if (parts === undefined) return undefined;
  const found = await db.query<{ until: Date }>(
    `SELECT until FROM (
       SELECT expires_at,
              CASE WHEN $7::bigint IS NULL THEN expires_at
                   ELSE LEAST(expires_at, created_at + $7::bigint * interval '1 second') END AS until
         FROM api_keys
        WHERE id = $1 AND user_id = $2 AND login_type = 'token' AND token_name = $3 AND hashed_secret = $4) AS key
      WHERE until > $5 AND ($6::timestamptz IS NULL OR expires_at <= $6)`,
    [
      parts.id,
      owner.userId,
      owner.tokenName,
      hashSecret(parts.secret),
      bounds.validUntil,
      bounds.notAfter ?? null,
      bounds.lifetimeSeconds ?? null,
    ],
  );
  return found.rows.length === 1 ? found.rows[0]!.until : undefined;
}

/**
 * The scope columns of a new key, as Coder itself fills them for a token of full access
 * (coderd/apikey/apikey.go Generate of each release): scope 'all' up to v2.26, scopes {coder:all} with
 * allow_list {*:*} from v2.27.
 */
function scopeColumns(schema: CoderSchema): { names: string; values: string } {
  return schema.apiKeyScope === 'scope'
    ? { names: 'scope', values: `'all'::api_key_scope` }
    : { names: 'scopes, allow_list', values: `ARRAY['coder:all']::api_key_scope[], ARRAY['*:*']::text[]` };
}

/** Deletes every key of this name of this user and inserts a fresh one; returns the new token and its expiry. */
export async function replaceToken(
  db: Queryable,
  owner: TokenOwner,
  lifetimeSeconds: number,
  now: Date,
  schema: CoderSchema,
): Promise<{ token: string; expiresAt: Date }> {
  await db.query(`DELETE FROM api_keys WHERE user_id = $1 AND login_type = 'token' AND token_name = $2`, [owner.userId, owner.tokenName]);
  const key = generateToken();
  const expiresAt = new Date(now.getTime() + lifetimeSeconds * 1000);
  const scope = scopeColumns(schema);
  await db.query(
    `INSERT INTO api_keys (id, hashed_secret, user_id, last_used, expires_at, created_at, updated_at,
                           login_type, lifetime_seconds, ip_address, token_name, ${scope.names})
     VALUES ($1, $2, $3, $4, $5, $4, $4, 'token', $6, '0.0.0.0', $7, ${scope.values})`,
    [key.id, hashSecret(key.secret), owner.userId, now, expiresAt, lifetimeSeconds, owner.tokenName],
  );
  return { token: key.token, expiresAt };
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
