// Whether a Coder release would accept a session token, read from its database the way that release's
// coderd/httpmw/apikey.go does it (ExtractAPIKey; from v2.36.0 ValidateAPIKey), with what it calls:
// SplitAPIToken, GetAPIKeyByID, the SHA-256 compare of the secret (v2.36.0: coderd/apikey ValidateHash), the
// expiry, the login-type checks, UserRBACSubject (GetAuthorizationUserRoles in coderd/database/queries/users.sql,
// then rolestore.Expand), the key's scope (coderd/database/modelmethods.go APIKeyScopes / APIKeyScopeSet) and
// the user's status with the dormant-user activation coderd.go configures. A paraphrase for tests of rows the
// operator writes directly; each rule names the release it follows. The real server is the check for v2.26.1.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { releaseAtLeast as atLeast } from './coder-release-database.ts';

export interface CoderSubject {
  userId: string;
  username: string;
  /** The user's status after the request: a dormant user is activated by the request itself. */
  status: string;
  /** users.rbac_roles plus the implied member role. */
  siteRoles: string[];
  /** Per organization id: the membership's roles plus the implied ones (and, from v2.36.0, the organization's defaults). */
  organizationRoles: Record<string, string[]>;
  /** Whether the key's scope grants everything its user may do (ScopeAll, no allow-list restriction). */
  fullScope: boolean;
  /** Whether this release moves the key's expires_at on when it is used (the expiry refresh). */
  refreshesExpiry: boolean;
}

export type TokenVerdict = { accepted: true; subject: CoderSubject } | { accepted: false; status: number; detail: string };

const refused = (status: number, detail: string): TokenVerdict => ({ accepted: false, status, detail });

/** The verdict of Coder `release` on `token` against the database at `databaseURL`, at `now`. */
export async function coderTokenVerdict(databaseURL: string, release: string, token: string, now = new Date()): Promise<TokenVerdict> {
  // SplitAPIToken: exactly two parts split at '-', a 10-character id and a 22-character secret.
  const parts = token.split('-');
  if (parts.length !== 2 || parts[0]!.length !== 10 || parts[1]!.length !== 22) return refused(401, 'Invalid API key format');
  const [id, secret] = parts as [string, string];

  const db = new pg.Client({ connectionString: databaseURL });
  await db.connect();
  try {
    // GetAPIKeyByID: the row as this release has it, whatever its columns.
    const keyRow = (await db.query<{ k: Record<string, any> }>('SELECT to_jsonb(k) AS k FROM api_keys k WHERE id = $1', [id])).rows[0];
    if (!keyRow) return refused(401, 'API key is invalid.');
    const key = keyRow.k;
    const hashed = Buffer.from(String(key.hashed_secret).replace(/^\\x/, ''), 'hex');
    if (!hashed.equals(createHash('sha256').update(secret).digest())) return refused(401, 'API key secret is invalid.');
    if (new Date(key.expires_at).getTime() < now.getTime()) return refused(401, `API key expired at ${key.expires_at}.`);

    // GitHub and OIDC keys need the user's link (and refresh it); OAuth2 provider app keys check their audience.
    if (key.login_type === 'github' || key.login_type === 'oidc') {
      const links = await db.query('SELECT 1 FROM user_links WHERE user_id = $1 AND login_type = $2', [key.user_id, key.login_type]);
      if (links.rows.length === 0) return refused(401, 'You must re-authenticate with the login provider.');
    }
    if (key.login_type === 'oauth2_provider_app') return refused(403, 'an OAuth2 provider app token: its audience is not followed here');

    // GetAuthorizationUserRoles: the user's row (not filtered on deleted, system or service account), its
    // site roles plus member, and per membership its roles plus the implied organization role.
    const userRow = (await db.query<{ u: Record<string, any> }>('SELECT to_jsonb(u) AS u FROM users u WHERE id = $1', [key.user_id]))
      .rows[0];
    if (!userRow) return refused(500, "Internal error fetching user's roles.");
    const user = userRow.u;
    const memberships = await db.query<{ organization_id: string; roles: string[]; o: Record<string, any> }>(
      `SELECT m.organization_id, m.roles, to_jsonb(o) AS o
         FROM organization_members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = $1`,
      [key.user_id],
    );
    const organizationRoles: Record<string, string[]> = {};
    for (const m of memberships.rows) {
      // v2.36.0: a service account's implied role is organization-service-account, and the organization's
      // default_org_member_roles apply to every member.
      const implied = atLeast(release, 'v2.36.0') && user.is_service_account ? 'organization-service-account' : 'organization-member';
      const defaults: string[] = atLeast(release, 'v2.36.0') ? (m.o.default_org_member_roles ?? []) : [];
      organizationRoles[m.organization_id] = [...m.roles, implied, ...defaults];
    }

    // The key's scope: up to v2.26 rbac.ScopeName(key.scope), 'all' being everything; v2.27 key.Scopes,
    // whose coder:all is everything and an empty list means all; from v2.30 key.ScopeSet(), the scopes'
    // expansion intersected with the key's allow_list, '*:*' allowing every resource, and an empty scope
    // list no longer expands (every authorization with it fails).
    let fullScope: boolean;
    if (!atLeast(release, 'v2.27.0')) {
      fullScope = key.scope === 'all';
    } else {
      const scopes: string[] = key.scopes ?? [];
      if (scopes.length === 0 && atLeast(release, 'v2.30.0')) return refused(500, 'no scopes provided: the key authorizes nothing');
      fullScope = scopes.length === 0 || scopes.includes('coder:all');
      if (atLeast(release, 'v2.30.0')) fullScope &&= ((key.allow_list as string[] | undefined) ?? []).includes('*:*');
    }

    // A dormant user is activated by the request (ActivateDormantUser, set in coderd.go); any other status
    // than active is refused.
    const status = user.status === 'dormant' ? 'active' : String(user.status);
    if (status !== 'active') return refused(401, `User is not active (status = "${status}").`);
    return {
      accepted: true,
      subject: {
        userId: String(user.id),
        username: String(user.username),
        status,
        siteRoles: [...(user.rbac_roles as string[]), 'member'],
        organizationRoles,
        fullScope,
        // The expiry refresh: every login type up to v2.30.0; from v2.36.0 not for login_type token.
        refreshesExpiry: !atLeast(release, 'v2.36.0') || key.login_type !== 'token',
      },
    };
  } finally {
    await db.end();
  }
}

/**
 * What an accepted request with `token` at `now` writes in that release (coderd/httpmw/apikey.go): last_used
 * once an hour, the user's last_seen_at (and a dormant user's activation), and the expiry refresh, expires_at = now + lifetime_seconds once
 * less than lifetime_seconds minus an hour is left (every login type up to v2.30.0; not login_type token
 * from v2.36.0). Refuses what coderTokenVerdict refuses.
 */
export async function coderUsesToken(databaseURL: string, release: string, token: string, now: Date): Promise<TokenVerdict> {
  const verdict = await coderTokenVerdict(databaseURL, release, token, now);
  if (!verdict.accepted) return verdict;
  const db = new pg.Client({ connectionString: databaseURL });
  await db.connect();
  try {
    await db.query(
      `UPDATE api_keys
          SET last_used = CASE WHEN $2::timestamptz - last_used > interval '1 hour' THEN $2 ELSE last_used END,
              expires_at = CASE WHEN $3 AND expires_at - $2::timestamptz <= lifetime_seconds * interval '1 second' - interval '1 hour'
                                THEN $2::timestamptz + lifetime_seconds * interval '1 second' ELSE expires_at END
        WHERE id = $1`,
      [token.split('-')[0], now, verdict.subject.refreshesExpiry],
    );
    await db.query(`UPDATE users SET last_seen_at = $2, status = 'active' WHERE id = $1`, [verdict.subject.userId, now]);
  } finally {
    await db.end();
  }
  return verdict;
}
