// The operator-access bootstrap against a real PostgreSQL holding a Coder release's own database (its
// migrations ran there: test/harness/coder-release-database.ts), the newest supported release unless a
// test names one; the last part runs it against every supported release.
import assert from 'node:assert/strict';
import { createHash, pbkdf2Sync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import pg from 'pg';
import {
  checkOperatorToken,
  ensureOperatorToken,
  OperatorAccessError,
  operatorTokenName,
  revokeOperatorToken,
  type CheckOperatorTokenInput,
  type EnsureOperatorTokenInput,
  type OperatorAccessReason,
} from '../../src/coder/operator-access/index.ts';
import { operatorAccessLockKey } from '../../src/coder/operator-access/advisory-lock.ts';
import { createCoderDatabase } from '../harness/coder-database.ts';
import {
  coderReleases,
  createCoderDumpDatabase,
  describeTables,
  insertOrganization,
  newestCoderRelease,
  releaseAtLeast,
} from '../harness/coder-release-database.ts';
import { freePort } from '../harness/ports.ts';
import { startPostgres, type Postgres } from '../harness/postgres.ts';
import { coderTokenVerdict, coderUsesToken, type CoderSubject } from '../harness/coder-token-verdict.ts';
import { eventually } from '../harness/wait.ts';

const year = 365 * 24 * 3600;
const tokenPattern = /^[0-9A-Za-z]{10}-[0-9A-Za-z]{22}$/;

/** A Coder database reached as its own non-superuser role (as Coder is), plus an admin URL to inspect it. */
interface CoderDatabase {
  url: string;
  adminURL: string;
  user: string;
  password: string;
  port: number;
}

let postgres: Postgres;
let roles = 0;

async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query<T>(text, params)).rows;
  } finally {
    await db.end();
  }
}

async function coderDatabase(options: { organizations?: number; schema?: boolean; release?: string } = {}): Promise<CoderDatabase> {
  const adminURL =
    options.schema === false
      ? await postgres.createDatabase('empty')
      : await createCoderDatabase(postgres, {
          organizations: options.organizations ?? 1,
          ...(options.release ? { release: options.release } : {}),
        });
  const user = `coder_role_${process.pid}_${++roles}`;
  const password = randomBytes(15).toString('base64url');
  await sql(postgres.url(), `CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
  await sql(adminURL, `GRANT ALL ON ALL TABLES IN SCHEMA public TO ${user}`);
  const url = new URL(adminURL);
  url.username = user;
  url.password = password;
  return { url: url.toString(), adminURL, user, password, port: postgres.port };
}

async function addOrganization(db: CoderDatabase, name: string, options: { deleted?: boolean } = {}): Promise<void> {
  const client = new pg.Client({ connectionString: db.adminURL });
  await client.connect();
  try {
    await insertOrganization(client, { name, ...options });
  } finally {
    await client.end();
  }
}

function ensure(db: CoderDatabase, extra: Partial<EnsureOperatorTokenInput> = {}) {
  return ensureOperatorToken({ postgresURL: db.url, tokenName: operatorTokenName('default', 'coder'), lifetimeSeconds: year, ...extra });
}

/**
 * A password hash in the format Coder writes (coder/coder v2.36.0 coderd/userpassword/userpassword.go):
 * pbkdf2-sha256, a 64-byte key, a 16-byte salt, unpadded base64. Fewer iterations than Coder's, same format.
 */
function coderPasswordHash(password: string): string {
  const salt = randomBytes(16);
  const iterations = 1000;
  const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
  return `$pbkdf2-sha256$${iterations}$${b64(salt)}$${b64(pbkdf2Sync(password, salt, iterations, 64, 'sha256'))}`;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

interface KeyRow {
  id: string;
  hashed_secret: Buffer;
  user_id: string;
  last_used: Date;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  login_type: string;
  lifetime_seconds: string;
  ip_address: string;
  token_name: string;
  /** Coder v2.27 and later: scopes and allow_list; before: scope (null where the column does not exist). */
  scopes: string[] | null;
  allow_list: string[] | null;
  scope: string | null;
}

function keys(db: CoderDatabase, tokenName?: string): Promise<KeyRow[]> {
  return sql<KeyRow>(
    db.adminURL,
    `SELECT id, hashed_secret, user_id, last_used, expires_at, created_at, updated_at, login_type::text,
            lifetime_seconds, host(ip_address) AS ip_address, token_name, to_jsonb(k)->'scopes' AS scopes,
            to_jsonb(k)->'allow_list' AS allow_list, to_jsonb(k)->>'scope' AS scope
       FROM api_keys k ${tokenName === undefined ? '' : 'WHERE token_name = $1'} ORDER BY token_name, id`,
    tokenName === undefined ? [] : [tokenName],
  );
}

function operatorUsers(db: CoderDatabase) {
  return sql<{
    id: string;
    email: string;
    username: string;
    name: string;
    hashed_password: Buffer;
    created_at: Date;
    updated_at: Date;
    rbac_roles: string[];
    login_type: string;
    status: string;
    is_system: boolean;
    deleted: boolean;
  }>(
    db.adminURL,
    `SELECT id, email, username, name, hashed_password, created_at, updated_at, rbac_roles, login_type::text,
            status::text, is_system, deleted
       FROM users WHERE lower(username) = 'coder-k8s-operator' ORDER BY deleted, created_at`,
  );
}

/** The row version (xmin) of the operator's user, every membership and every key: an UPDATE or INSERT changes it. */
function rowVersions(adminURL: string) {
  return sql<{ row: string; xmin: string }>(
    adminURL,
    `SELECT 'user ' || id AS row, xmin::text FROM users WHERE username = 'coder-k8s-operator'
     UNION ALL SELECT 'member ' || organization_id, xmin::text FROM organization_members
     UNION ALL SELECT 'key ' || id, xmin::text FROM api_keys ORDER BY 1`,
  );
}

function memberships(db: CoderDatabase, userId: string) {
  return sql<{ organization_id: string; roles: string[]; deleted: boolean }>(
    db.adminURL,
    `SELECT m.organization_id, m.roles, o.deleted FROM organization_members m
       JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = $1 ORDER BY o.name`,
    [userId],
  );
}

/** Asserts the reason, and that neither the message nor anything else on the error holds a credential. */
async function rejectsSafely(
  call: Promise<unknown>,
  reason: OperatorAccessReason,
  message: RegExp,
  db: Pick<CoderDatabase, 'user' | 'password' | 'port'>,
  host = '127.0.0.1',
) {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof OperatorAccessError, `not an OperatorAccessError: ${inspect(err)}`);
    assert.equal(err.reason, reason, err.message);
    assert.match(err.message, message);
    const everything = `${err.message}\n${err.stack}\n${inspect(err, { depth: 10, showHidden: true })}\n${JSON.stringify(err)}`;
    for (const secret of [
      db.password,
      encodeURIComponent(db.password),
      db.user,
      `${host}:${db.port}`,
      host,
      `:${db.port}`,
      'postgresql://',
    ]) {
      assert.ok(!everything.includes(secret), `the error shows ${JSON.stringify(secret)}: ${everything}`);
    }
    return true;
  });
}

/** Runs `body` while another session holds the operator-access lock, as a stuck writer would. */
async function whileLockHeld(db: { adminURL: string }, body: () => Promise<void>): Promise<void> {
  const holder = new pg.Client({ connectionString: db.adminURL });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock($1::bigint)', [operatorAccessLockKey.toString()]);
    await body();
  } finally {
    await holder.end();
  }
}
describe('operator-access bootstrap against real PostgreSQL', () => {
  before(async () => {
    postgres = await startPostgres();
  });
  after(() => postgres?.stop());

  it('creates the operator user, a plain member (no organization role) of every live organization, and one token', async () => {
    const db = await coderDatabase({ organizations: 3 });
    await addOrganization(db, 'gone', { deleted: true });
    const before = Date.now();
    const result = await ensure(db);
    const after = Date.now();

    assert.equal(result.rotated, true);
    assert.match(result.token, tokenPattern);
    const [id, secret] = result.token.split('-') as [string, string];

    const users = await operatorUsers(db);
    assert.equal(users.length, 1);
    const user = users[0]!;
    assert.deepEqual(
      { ...user, id: undefined, created_at: undefined, updated_at: undefined, hashed_password: user.hashed_password.toString() },
      {
        id: undefined,
        created_at: undefined,
        updated_at: undefined,
        email: 'coder-k8s-operator@coder-k8s.invalid',
        username: 'coder-k8s-operator',
        name: 'coder-k8s-operator',
        hashed_password: 'none',
        rbac_roles: ['owner'],
        login_type: 'none',
        status: 'active',
        is_system: false,
        deleted: false,
      },
    );
    assert.equal(user.created_at.getTime(), user.updated_at.getTime());

    const orgs = await memberships(db, user.id);
    assert.equal(orgs.length, 3, 'a membership in each of the 3 live organizations, none in the deleted one');
    assert.ok(orgs.every((m) => !m.deleted && m.roles.length === 0));

    const rows = await keys(db);
    assert.equal(rows.length, 1);
    const key = rows[0]!;
    assert.equal(key.id, id);
    assert.deepEqual(key.hashed_secret, sha256(secret));
    assert.equal(key.user_id, user.id);
    assert.equal(key.login_type, 'token');
    assert.equal(key.token_name, operatorTokenName('default', 'coder'));
    assert.equal(key.lifetime_seconds, String(year));
    assert.equal(key.ip_address, '0.0.0.0');
    assert.deepEqual([key.scopes, key.allow_list, key.scope], [['coder:all'], ['*:*'], null]);
    assert.equal(key.last_used.getTime(), key.created_at.getTime());
    assert.equal(key.updated_at.getTime(), key.created_at.getTime());
    const expires = key.expires_at.getTime();
    assert.ok(
      expires >= before + year * 1000 - 1000 && expires <= after + year * 1000 + 1000,
      `expires_at ${key.expires_at.toISOString()}`,
    );
    assert.equal(expires - key.created_at.getTime(), year * 1000);
  });

  it('returns a valid token unchanged and keeps its row', async () => {
    const db = await coderDatabase();
    const first = await ensure(db);
    const [row] = await keys(db);
    const second = await ensure(db, { existingToken: first.token });
    assert.deepEqual(second, { token: first.token, rotated: false, expiresAt: first.expiresAt });
    assert.deepEqual(await keys(db), [row]);
  });

  it('rotates a token that is malformed, wrong, foreign or expired, leaving one row for the name', async () => {
    const db = await coderDatabase();
    const name = operatorTokenName('default', 'coder');
    const other = operatorTokenName('other', 'coder');
    const foreign = (await ensure(db, { tokenName: other })).token;
    let current = (await ensure(db)).token;
    const [currentId] = current.split('-');

    const candidates: Array<[string, () => Promise<string>]> = [
      ['an empty string', async () => ''],
      ['no dash', async () => 'abcdefghij'],
      ['an empty id', async () => `-${current.split('-')[1]}`],
      ['an empty secret', async () => `${currentId}-`],
      ['the right id with a wrong secret', async () => `${current.split('-')[0]}-${'x'.repeat(22)}`],
      ["another control plane's token", async () => foreign],
      [
        'an expired token',
        async () => {
          await sql(db.adminURL, `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE token_name = $1`, [name]);
          return current;
        },
      ],
    ];
    for (const [what, make] of candidates) {
      const existingToken = await make();
      const before = (await keys(db, name))[0]!;
      const result = await ensure(db, { existingToken });
      assert.equal(result.rotated, true, what);
      assert.match(result.token, tokenPattern, what);
      assert.notEqual(result.token, current, what);
      const rows = await keys(db, name);
      assert.equal(rows.length, 1, `${what}: one row for the name`);
      assert.notEqual(rows[0]!.id, before.id, `${what}: the old row is gone`);
      assert.deepEqual(rows[0]!.hashed_secret, sha256(result.token.split('-')[1]!));
      current = result.token;
    }
    const foreignRows = await keys(db, other);
    assert.equal(foreignRows.length, 1, "the other control plane's token is untouched");
    assert.equal(foreignRows[0]!.id, foreign.split('-')[0]);
  });

  it('rotates once the clock passes expires_at, with no timer of its own', async () => {
    const db = await coderDatabase();
    const start = new Date('2030-01-01T00:00:00Z');
    const first = await ensure(db, { now: start, lifetimeSeconds: 3600 });
    const stillValid = await ensure(db, { now: new Date(start.getTime() + 3599_000), existingToken: first.token });
    assert.equal(stillValid.rotated, false);
    const atExpiry = await ensure(db, { now: new Date(start.getTime() + 3600_000), existingToken: first.token, lifetimeSeconds: 3600 });
    assert.equal(atExpiry.rotated, true);
    const [row] = await keys(db);
    assert.equal(row!.expires_at.toISOString(), '2030-01-01T02:00:00.000Z');
  });

  it('replaces a token that expires within the renewal window, and says when each token expires', async () => {
    const db = await coderDatabase();
    const start = new Date('2030-01-01T00:00:00Z');
    const options = { lifetimeSeconds: 3600, renewBeforeSeconds: 600 };
    const first = await ensure(db, { now: start, ...options });
    assert.equal(first.expiresAt.toISOString(), '2030-01-01T01:00:00.000Z');
    const kept = await ensure(db, { now: new Date(start.getTime() + 2999_000), existingToken: first.token, ...options });
    assert.deepEqual(kept, { token: first.token, rotated: false, expiresAt: first.expiresAt });
    const renewed = await ensure(db, { now: new Date(start.getTime() + 3000_000), existingToken: first.token, ...options });
    assert.equal(renewed.rotated, true, 'ten minutes before expiry the token is replaced');
    assert.equal(renewed.expiresAt.toISOString(), '2030-01-01T01:50:00.000Z');
    await assert.rejects(ensure(db, { lifetimeSeconds: 60, renewBeforeSeconds: 60 }), /renewal window/);

    const yearLong = await ensure(db, { now: start, lifetimeSeconds: year });
    const shortened = await ensure(db, { now: start, existingToken: yearLong.token, ...options });
    assert.equal(shortened.rotated, true, 'a token that outlives a fresh one (an earlier, longer lifetime) is replaced');
    assert.equal(shortened.expiresAt.toISOString(), '2030-01-01T01:00:00.000Z');
  });

  it('keeps two token names side by side for one user', async () => {
    const db = await coderDatabase();
    const a = await ensure(db, { tokenName: operatorTokenName('team-a', 'coder') });
    const b = await ensure(db, { tokenName: operatorTokenName('team-b', 'coder') });
    assert.notEqual(a.token, b.token);
    const rows = await keys(db);
    assert.equal(rows.length, 2);
    assert.equal(new Set(rows.map((r) => r.user_id)).size, 1);
    assert.equal((await operatorUsers(db)).length, 1);
    assert.equal((await ensure(db, { tokenName: operatorTokenName('team-a', 'coder'), existingToken: a.token })).rotated, false);
    assert.equal((await ensure(db, { tokenName: operatorTokenName('team-b', 'coder'), existingToken: b.token })).rotated, false);
  });

  it("enforces the user's attributes and memberships back after someone changed them", async () => {
    const db = await coderDatabase({ organizations: 2 });
    const first = await ensure(db);
    const [user] = await operatorUsers(db);
    await sql(
      db.adminURL,
      `UPDATE users SET email = 'changed@example.com', name = 'Changed', rbac_roles = '{member}',
              login_type = 'password', status = 'suspended', username = 'Coder-K8s-Operator'
        WHERE id = $1`,
      [user!.id],
    );
    await sql(db.adminURL, `UPDATE organization_members SET roles = '{organization-admin}' WHERE user_id = $1`, [user!.id]);
    await sql(db.adminURL, `DELETE FROM organization_members WHERE organization_id = (SELECT id FROM organizations WHERE name = 'org-1')`);

    const again = await ensure(db, { existingToken: first.token });
    assert.equal(again.rotated, false, 'the token stays valid');
    const [enforced] = await operatorUsers(db);
    assert.equal(enforced!.id, user!.id, 'the user is found case-insensitively, not created anew');
    assert.deepEqual(
      [
        enforced!.email,
        enforced!.name,
        enforced!.hashed_password.toString(),
        enforced!.rbac_roles,
        enforced!.login_type,
        enforced!.status,
        enforced!.is_system,
      ],
      ['coder-k8s-operator@coder-k8s.invalid', 'coder-k8s-operator', 'none', ['owner'], 'none', 'active', false],
    );
    assert.ok(enforced!.updated_at > user!.updated_at);
    const orgs = await memberships(db, user!.id);
    assert.equal(orgs.length, 2);
    assert.ok(orgs.every((m) => m.roles.length === 0));
  });

  it('writes the roles it is given: organization-admin in every organization without a site role, owner without organization roles, and back', async () => {
    const db = await coderDatabase({ organizations: 2 });
    const narrowed = { site: [], organization: ['organization-admin'] };
    const first = await ensure(db, { roles: narrowed });
    const [user] = await operatorUsers(db);
    assert.deepEqual(user!.rbac_roles, [], 'no site role: Coder adds member itself');
    assert.deepEqual(
      (await memberships(db, user!.id)).map((m) => m.roles),
      [['organization-admin'], ['organization-admin']],
    );
    const narrowedSubject = await coderTokenVerdict(db.adminURL, newestCoderRelease, first.token);
    assert.ok(narrowedSubject.accepted);
    assert.deepEqual(narrowedSubject.subject.siteRoles, ['member']);
    assert.ok(Object.values(narrowedSubject.subject.organizationRoles).every((r) => r.includes('organization-admin')));

    await ensure(db, { existingToken: first.token, roles: { site: ['owner'], organization: [] } });
    const [owner] = await operatorUsers(db);
    assert.deepEqual(owner!.rbac_roles, ['owner']);
    assert.deepEqual(
      (await memberships(db, user!.id)).map((m) => m.roles),
      [[], []],
    );

    const again = await ensure(db, { existingToken: first.token, roles: narrowed });
    assert.equal(again.rotated, false, 'a change of roles keeps the token');
    const [back] = await operatorUsers(db);
    assert.deepEqual(back!.rbac_roles, []);
    assert.deepEqual(
      (await memberships(db, user!.id)).map((m) => m.roles),
      [['organization-admin'], ['organization-admin']],
    );
    // An admin who gives the narrowed user owner in Coder sees it undone.
    await sql(db.adminURL, `UPDATE users SET rbac_roles = '{owner}' WHERE id = $1`, [user!.id]);
    await ensure(db, { existingToken: first.token, roles: narrowed });
    assert.deepEqual((await operatorUsers(db))[0]!.rbac_roles, []);
  });

  it('refuses a role name Coder does not have before connecting', async () => {
    const db = await coderDatabase();
    await rejectsSafely(
      ensure(db, { roles: { site: ['organization-admin'], organization: [] } }),
      'Invalid',
      /name no Coder role: organization-admin/,
      db,
    );
    assert.deepEqual(await operatorUsers(db), [], 'nothing written');
  });

  it('recognises the system user an earlier version or the Go original created, keeps its token and makes it visible', async () => {
    const db = await coderDatabase({ organizations: 2 });
    const [org] = await sql<{ id: string }>(db.adminURL, `SELECT id FROM organizations WHERE name = 'coder'`);
    const id = randomUUID();
    // The rows the Go original and earlier versions wrote: a system user (is_system, hidden from Coder's
    // user list), organization-admin in every organization, a year-long token with scopes {coder:all}.
    await sql(
      db.adminURL,
      `INSERT INTO users (id, email, username, name, hashed_password, created_at, updated_at, rbac_roles, login_type, status, is_system)
       VALUES ($1, 'coder-k8s-operator@coder-k8s.invalid', 'coder-k8s-operator', 'coder-k8s-operator', 'none', now(), now(),
               '{owner}', 'none', 'active', true)`,
      [id],
    );
    await sql(
      db.adminURL,
      `INSERT INTO organization_members (organization_id, user_id, created_at, updated_at, roles) VALUES ($1, $2, now(), now(), '{organization-admin}')`,
      [org!.id, id],
    );
    const start = new Date();
    const { token } = await ensure(db, { now: start, lifetimeSeconds: 30 * 24 * 3600 });
    const [moved] = await operatorUsers(db);
    assert.equal(moved!.id, id, 'the same user, not a new one');
    assert.equal(moved!.is_system, false, 'no longer a hidden system user');
    assert.deepEqual(
      (await memberships(db, id)).map((m) => m.roles),
      [[], []],
      'organization-admin removed, the other organization joined',
    );
    const again = await ensure(db, { existingToken: token, now: start, lifetimeSeconds: 30 * 24 * 3600 });
    assert.equal(again.rotated, false, 'the token issued to that user stays valid');
  });

  it('never adopts a coder-k8s-operator user it did not create: one Coder made through sign-up, SSO or its API, refusing and changing nothing', async () => {
    const db = await coderDatabase();
    // Each row as Coder itself writes it (coder/coder v2.36.0 coderd/users.go CreateUser, coderd/userauth.go,
    // coderd/userpassword): a password hash of Coder's format, or no password at all.
    const asCoderWritesIt: Array<[string, string, unknown[]]> = [
      [
        'a password sign-up',
        `INSERT INTO users (id, email, username, name, hashed_password, created_at, updated_at, rbac_roles, login_type, status)
         VALUES (gen_random_uuid(), 'mallory@example.com', 'coder-k8s-operator', 'Mallory', $1, now(), now(), '{}', 'password', 'dormant')`,
        [coderPasswordHash('Mallory-password-1!')],
      ],
      [
        'an OIDC single sign-on',
        `INSERT INTO users (id, email, username, name, hashed_password, created_at, updated_at, rbac_roles, login_type, status)
         VALUES (gen_random_uuid(), 'mallory@example.com', 'Coder-K8s-Operator', 'Mallory', '', now(), now(), '{}', 'oidc', 'active')`,
        [],
      ],
      [
        'a service account made through the API (v2.36.0, Premium)',
        `INSERT INTO users (id, email, username, name, hashed_password, created_at, updated_at, rbac_roles, login_type, status,
                            is_service_account)
         VALUES (gen_random_uuid(), '', 'coder-k8s-operator', 'Mallory', '', now(), now(), '{}', 'none', 'active', true)`,
        [],
      ],
    ];
    const removeThem = () => sql(db.adminURL, `UPDATE users SET deleted = true WHERE lower(username) = 'coder-k8s-operator'`);
    for (const [how, insert, params] of asCoderWritesIt) {
      await removeThem();
      await sql(db.adminURL, insert, params);
      const [before] = await operatorUsers(db);
      await rejectsSafely(
        ensure(db),
        'UserNotCreatedByOperator',
        /a Coder user named coder-k8s-operator exists that the operator did not create .*delete that user in Coder/,
        db,
      );
      const [after] = await operatorUsers(db);
      assert.deepEqual(after, before, `${how}: the user is left as it was (no owner role, no new email)`);
      assert.deepEqual(await memberships(db, before!.id), [], `${how}: no membership added`);
      assert.deepEqual(await keys(db), [], `${how}: no token issued`);
    }
    await removeThem();
    const own = await ensure(db);
    assert.equal(own.rotated, true, 'once that user is gone, the operator creates its own');

    // Someone gives the operator's own user a password in Coder: whoever knows it now controls the user.
    await sql(db.adminURL, `UPDATE users SET hashed_password = $1 WHERE username = 'coder-k8s-operator' AND NOT deleted`, [
      coderPasswordHash('Taken-over-1!'),
    ]);
    await rejectsSafely(ensure(db, { existingToken: own.token }), 'UserNotCreatedByOperator', /was given a password there/, db);
  });

  it('writes nothing when the user, its memberships and the token already match', async () => {
    const db = await coderDatabase({ organizations: 2 });
    const first = await ensure(db);
    const versions = () => rowVersions(db.adminURL);
    const before = await versions();
    // The operator's user, its two memberships and its key, and the membership of Coder's own prebuilds user.
    assert.equal(before.length, 5);
    for (let i = 0; i < 3; i++) assert.equal((await ensure(db, { existingToken: first.token })).rotated, false);
    assert.deepEqual(await versions(), before, 'no row got a new version (no UPDATE, no INSERT)');
  });

  it('writes nothing when the narrowed roles already match either', async () => {
    const db = await coderDatabase({ organizations: 2 });
    const roles = { site: [], organization: ['organization-admin'] };
    const first = await ensure(db, { roles });
    const versions = () => rowVersions(db.adminURL);
    const before = await versions();
    for (let i = 0; i < 3; i++) assert.equal((await ensure(db, { existingToken: first.token, roles })).rotated, false);
    assert.deepEqual(await versions(), before, 'no row got a new version (no UPDATE, no INSERT)');
  });

  it('commits a new token only once the caller has stored it: a failed store leaves no live token', async () => {
    const db = await coderDatabase();
    const refusal = new Error('the Secret could not be created');
    let offered: string | undefined;
    await assert.rejects(
      ensure(db, {
        store: async (token) => {
          offered = token;
          throw refusal;
        },
      }),
      (err) => err === refusal,
    );
    assert.match(offered ?? '', tokenPattern);
    assert.deepEqual(await keys(db), [], 'the token row was rolled back');
    assert.deepEqual(await operatorUsers(db), [], 'and so was the user');
    let stored: string | undefined;
    const result = await ensure(db, {
      store: async (token) => {
        stored = token;
      },
    });
    assert.equal(stored, result.token);
    assert.equal((await keys(db)).length, 1);
    assert.equal((await ensure(db, { existingToken: result.token, store: () => assert.fail('nothing to store') })).rotated, false);
  });

  it('ends a call at once when its signal aborts, closing the connection and committing nothing', async () => {
    const db = await coderDatabase();
    await whileLockHeld(db, async () => {
      for (const call of ['ensure', 'revoke'] as const) {
        const controller = new AbortController();
        const reason = new Error(`shutting down (${call})`);
        const pending =
          call === 'ensure'
            ? ensure(db, { signal: controller.signal, timeouts: { statementMs: 60_000 } })
            : revokeOperatorToken({ postgresURL: db.url, tokenName: 'n', signal: controller.signal, timeouts: { statementMs: 60_000 } });
        await eventually(`the ${call} call to wait on the lock`, async () => {
          const rows = await sql(postgres.url(), `SELECT 1 FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'`, [
            db.user,
          ]);
          return rows.length === 1;
        });
        const abortedAt = Date.now();
        controller.abort(reason);
        await assert.rejects(pending, (err) => err === reason);
        const took = Date.now() - abortedAt;
        assert.ok(took < 5_000, `${call} ended ${took} ms after the abort, while the statement limit is 60 s`);
        await eventually(`the ${call} session to be gone from the server`, async () => {
          const [row] = await sql<{ n: string }>(postgres.url(), `SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1`, [
            db.user,
          ]);
          return row?.n === '0';
        });
      }
      await assert.rejects(ensure(db, { signal: AbortSignal.abort(new Error('already aborted')) }), /already aborted/);
    });
    assert.deepEqual(await keys(db), []);
    assert.deepEqual(await operatorUsers(db), []);
  });

  it('keeps sslmode working as before: disable connects, require fails against a server without TLS', async () => {
    const db = await coderDatabase();
    const withMode = (mode: string) => {
      const url = new URL(db.url);
      url.searchParams.set('sslmode', mode);
      return url.toString();
    };
    assert.equal((await ensure(db, { postgresURL: withMode('disable') })).rotated, true);
    await rejectsSafely(
      ensure(db, { postgresURL: withMode('require') }),
      'Unreachable',
      /asks for TLS but PostgreSQL does not offer it/,
      db,
    );
    await rejectsSafely(
      ensure(db, { postgresURL: withMode('verify-full') }),
      'Unreachable',
      /asks for TLS but PostgreSQL does not offer it/,
      db,
    );
  });

  it("checks a token read-only: live only for the operator's own user and this token name", async () => {
    const db = await coderDatabase();
    const name = operatorTokenName('default', 'coder');
    const { token } = await ensure(db);
    const versions = () => sql(db.adminURL, `SELECT xmin::text FROM users UNION ALL SELECT xmin::text FROM api_keys ORDER BY 1`);
    const before = await versions();
    const check = (extra: Partial<CheckOperatorTokenInput>) =>
      checkOperatorToken({ postgresURL: db.url, tokenName: name, token, ...extra });
    assert.deepEqual(await check({}), { live: true });
    assert.deepEqual(await check({ tokenName: operatorTokenName('other', 'coder') }), { live: false });
    assert.deepEqual(await check({ token: `${token.split('-')[0]}-${'x'.repeat(22)}` }), { live: false });
    assert.deepEqual(await check({ now: new Date(Date.now() + 2 * year * 1000) }), { live: false }, 'expired');
    assert.deepEqual(await versions(), before, 'nothing written');
    // What Coder writes when a user's login type is changed (queries/users.sql UpdateUserLoginType): no password.
    await sql(db.adminURL, `UPDATE users SET hashed_password = '' WHERE username = 'coder-k8s-operator'`);
    assert.deepEqual(await check({}), { live: false }, 'not for a user the operator did not create');
  });

  it('creates a new user when the operator user was deleted, and a new token for it', async () => {
    const db = await coderDatabase();
    const first = await ensure(db);
    await sql(db.adminURL, `UPDATE users SET deleted = true WHERE username = 'coder-k8s-operator'`);
    const again = await ensure(db, { existingToken: first.token });
    assert.equal(again.rotated, true);
    const users = await operatorUsers(db);
    assert.deepEqual(
      users.map((u) => u.deleted),
      [false, true],
    );
    const rows = await keys(db);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.user_id, users[0]!.id);
  });

  it('serializes concurrent calls on one database: one user, every token issued', async () => {
    const db = await coderDatabase();
    const names = Array.from({ length: 8 }, (_, i) => operatorTokenName('ns', `cp-${i}`));
    const results = await Promise.all(names.map((tokenName) => ensure(db, { tokenName })));
    assert.ok(results.every((r) => r.rotated && tokenPattern.test(r.token)));
    assert.equal((await operatorUsers(db)).length, 1);
    assert.equal((await keys(db)).length, 8);
  });

  it('reports NoOrganization and leaves nothing behind when no organization is live', async () => {
    const db = await coderDatabase({ organizations: 0 });
    await rejectsSafely(ensure(db), 'NoOrganization', /no organization/, db);
    await addOrganization(db, 'gone', { deleted: true });
    await rejectsSafely(ensure(db), 'NoOrganization', /no organization/, db);
    assert.deepEqual(await operatorUsers(db), [], 'the user insert was rolled back');
  });

  it('reports AuthenticationFailed for a wrong password', async () => {
    const db = await coderDatabase();
    const wrong = new URL(db.url);
    wrong.password = 'not-the-password';
    await rejectsSafely(
      ensure(db, { postgresURL: wrong.toString() }),
      'AuthenticationFailed',
      /rejected the user name or password .*SQLSTATE 28P01/,
      { ...db, password: 'not-the-password' },
    );
  });

  it('reports Unreachable at once for a closed port', async () => {
    const port = await freePort();
    const target = { user: 'coder_unreachable', password: 'pw-unreachable-1', port };
    const started = Date.now();
    await rejectsSafely(
      ensureOperatorToken({
        postgresURL: `postgresql://${target.user}:${target.password}@127.0.0.1:${port}/coder`,
        tokenName: 'n',
        lifetimeSeconds: 60,
      }),
      'Unreachable',
      /refused the connection.*ECONNREFUSED/,
      target,
    );
    assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
  });

  it('reports Unreachable within the connect timeout for a server that never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
    });
    const port = await new Promise<number>((resolve) =>
      silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)),
    );
    try {
      const target = { user: 'coder_silent', password: 'pw-silent-1', port };
      const started = Date.now();
      await rejectsSafely(
        ensureOperatorToken({
          postgresURL: `postgres://${target.user}:${target.password}@127.0.0.1:${port}/coder`,
          tokenName: 'n',
          lifetimeSeconds: 60,
          timeouts: { connectMs: 500 },
        }),
        'Unreachable',
        /did not answer within 0\.5 s/,
        target,
      );
      const took = Date.now() - started;
      assert.ok(took >= 450 && took < 3_000, `took ${took} ms`);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it("reports SchemaMismatch naming the oldest supported release for a database without Coder's tables", async () => {
    const db = await coderDatabase({ schema: false });
    await rejectsSafely(
      ensure(db),
      'SchemaMismatch',
      /\(no table users, organizations, organization_members, api_keys\): the operator supports the databases of Coder v2\.24\.0 and later/,
      db,
    );
  });

  it('reports SchemaMismatch for a users table older than the oldest supported release, writing nothing', async () => {
    // users.is_system came with Coder's migration 000308; a release without it is older than the oldest supported.
    const db = await coderDatabase({ release: coderReleases[0] });
    await sql(db.adminURL, 'ALTER TABLE users DROP COLUMN is_system CASCADE');
    await rejectsSafely(ensure(db), 'SchemaMismatch', /\(no column users\.is_system\): .*Coder v2\.24\.0 and later/, db);
    assert.deepEqual(await sql(db.adminURL, `SELECT 1 FROM users WHERE username = 'coder-k8s-operator'`), []);
  });

  it('reports SchemaMismatch for an api_keys table with neither scope nor scopes and allow_list, writing nothing', async () => {
    const db = await coderDatabase({ release: 'v2.27.0' });
    await sql(db.adminURL, 'ALTER TABLE api_keys DROP COLUMN allow_list');
    await rejectsSafely(
      ensure(db),
      'SchemaMismatch',
      /api_keys has only scopes of the columns scope \(Coder v2\.24 to v2\.26\) or scopes and allow_list \(Coder v2\.27 and later\)/,
      db,
    );
    assert.deepEqual(await operatorUsers(db), []);
  });

  it('reports SchemaMismatch for a column of a newer Coder that it cannot fill, and rolls the user back', async () => {
    const db = await coderDatabase();
    await sql(db.adminURL, 'ALTER TABLE api_keys ADD COLUMN of_a_newer_coder text NOT NULL');
    await rejectsSafely(
      ensure(db),
      'SchemaMismatch',
      /a required column has no default\) while issuing a new token \(SQLSTATE 23502\)/,
      db,
    );
    assert.deepEqual(await operatorUsers(db), []);
  });

  it('reports a statement that waits too long instead of hanging', async () => {
    const db = await coderDatabase();
    await whileLockHeld(db, async () => {
      const started = Date.now();
      await rejectsSafely(
        ensure(db, { timeouts: { statementMs: 300 } }),
        'Failed',
        /longer than 0\.3 s while waiting for another operator-access transaction \(SQLSTATE 57014\)/,
        db,
      );
      assert.ok(Date.now() - started < 3_000);
    });
  });

  it('closes its connection after every call, failed or not', async () => {
    const db = await coderDatabase({ organizations: 0 });
    await rejectsSafely(ensure(db), 'NoOrganization', /no organization/, db);
    await addOrganization(db, 'coder');
    await ensure(db);
    await revokeOperatorToken({ postgresURL: db.url, tokenName: operatorTokenName('default', 'coder') });
    await eventually(
      'no session of the operator-access bootstrap left on the server',
      async () => {
        const [row] = await sql<{ n: string }>(postgres.url(), `SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1`, [db.user]);
        return row?.n === '0';
      },
      { timeoutMs: 5_000 },
    );
  });

  it('revokes only the token of the given name, keeping the user and its memberships', async () => {
    const db = await coderDatabase();
    const a = operatorTokenName('team-a', 'coder');
    const b = operatorTokenName('team-b', 'coder');
    assert.deepEqual(await revokeOperatorToken({ postgresURL: db.url, tokenName: a }), { deleted: 0 }, 'nothing to revoke yet');
    await ensure(db, { tokenName: a });
    const kept = await ensure(db, { tokenName: b });
    assert.deepEqual(await revokeOperatorToken({ postgresURL: db.url, tokenName: a }), { deleted: 1 });
    assert.deepEqual(
      (await keys(db)).map((r) => r.token_name),
      [b],
    );
    const [user] = await operatorUsers(db);
    assert.ok(user && !user.deleted);
    assert.equal((await memberships(db, user.id)).length, 1);
    assert.deepEqual(await revokeOperatorToken({ postgresURL: db.url, tokenName: a }), { deleted: 0 });
    assert.equal((await ensure(db, { tokenName: b, existingToken: kept.token })).rotated, false);
  });

  it('reports revoke failures safely too', async () => {
    const db = await coderDatabase({ schema: false });
    await rejectsSafely(
      revokeOperatorToken({ postgresURL: db.url, tokenName: 'n' }),
      'SchemaMismatch',
      /while deleting the operator token/,
      db,
    );
    const wrong = new URL(db.url);
    wrong.password = 'also-wrong-pw';
    await rejectsSafely(revokeOperatorToken({ postgresURL: wrong.toString(), tokenName: 'n' }), 'AuthenticationFailed', /SQLSTATE 28P01/, {
      ...db,
      password: 'also-wrong-pw',
    });
  });

  it('reports a database name that does not exist as Invalid', async () => {
    const db = await coderDatabase();
    const missing = new URL(db.url);
    missing.pathname = '/no_such_database';
    await rejectsSafely(ensure(db, { postgresURL: missing.toString() }), 'Invalid', /does not exist/, db);
  });

  // The figures are printed, not bounded (timings on a shared machine are noise); the outcomes are checked.
  it('keeps, replaces and revokes the token alike over many calls, and prints what a call costs', async (t) => {
    const db = await coderDatabase();
    const rounds = 50;
    const kept = (await ensure(db)).token;
    const reused: { token: string; rotated: boolean }[] = [];
    let started = performance.now();
    for (let i = 0; i < rounds; i++) reused.push(await ensure(db, { existingToken: kept }));
    const reuse = (performance.now() - started) / rounds;
    assert.ok(
      reused.every((r) => r.token === kept && !r.rotated),
      'a valid token is kept on every call',
    );
    const issued: { token: string; rotated: boolean }[] = [];
    started = performance.now();
    for (let i = 0; i < rounds; i++) issued.push(await ensure(db));
    const rotate = (performance.now() - started) / rounds;
    assert.ok(issued.every((r) => r.rotated && tokenPattern.test(r.token)));
    assert.equal(new Set(issued.map((r) => r.token)).size, rounds, 'every call without the token issues a new one');
    assert.deepEqual(
      (await keys(db)).map((k) => k.id),
      [issued.at(-1)!.token.split('-')[0]],
      'each new token replaced the last',
    );
    const revoked: { deleted: number }[] = [];
    started = performance.now();
    for (let i = 0; i < rounds; i++) revoked.push(await revokeOperatorToken({ postgresURL: db.url, tokenName: 'n' }));
    const revoke = (performance.now() - started) / rounds;
    assert.ok(
      revoked.every((r) => r.deleted === 0),
      'no token named "n" to revoke',
    );
    t.diagnostic(
      `ensure (reuse) ${reuse.toFixed(1)} ms, ensure (rotate) ${rotate.toFixed(1)} ms, revoke ${revoke.toFixed(1)} ms per call, ` +
        'each with its own connection and SCRAM authentication',
    );
  });

  describe("on the database of every supported Coder release, checked as that release's apikey.go would", () => {
    const day = 24 * 3600;
    const lifetime = { lifetimeSeconds: 30 * day, renewBeforeSeconds: 10 * day };
    for (const release of coderReleases) {
      it(`${release}: the harness's database of that release defines the bootstrap's tables as its dump.sql does`, async () => {
        const tables = ['users', 'organizations', 'organization_members', 'api_keys', 'user_status_changes'];
        const migrated = await describeTables(await createCoderDatabase(postgres, { release }), tables);
        const dumped = await describeTables(await createCoderDumpDatabase(postgres, release), tables);
        assert.ok(migrated.length > 40, migrated.join('\n'));
        assert.deepEqual(migrated, dumped);
      });

      it(`${release}: mints a token that release accepts as the operator's owner user, which Coder lists to its admins`, async () => {
        const db = await coderDatabase({ release, organizations: 2 });
        const { token } = await ensure(db, lifetime);
        const verdict = await coderTokenVerdict(db.adminURL, release, token);
        assert.ok(verdict.accepted, `refused: ${JSON.stringify(verdict)}`);
        const { subject } = verdict;
        assert.equal(subject.username, 'coder-k8s-operator');
        assert.deepEqual(subject.siteRoles, ['owner', 'member']);
        assert.equal(subject.fullScope, true, 'the scope of full access, not restricted by an allow list');
        const orgs = await sql<{ id: string }>(db.adminURL, 'SELECT id FROM organizations WHERE NOT deleted ORDER BY id');
        assert.equal(orgs.length, 2);
        assert.deepEqual(Object.keys(subject.organizationRoles).sort(), orgs.map((o) => o.id).sort(), 'a member of every organization');
        assert.ok(Object.values(subject.organizationRoles).every((roles) => roles.includes('organization-member')));

        const [key] = await keys(db);
        assert.deepEqual(
          [key!.scope, key!.scopes, key!.allow_list],
          !releaseAtLeast(release, 'v2.27.0') ? ['all', null, null] : [null, ['coder:all'], ['*:*']],
          "the scope columns of that release, filled as Coder's own apikey.Generate fills them",
        );
        // GET /api/v2/users lists users that are not deleted and not system users (queries/users.sql GetUsers).
        const listed = await sql(
          db.adminURL,
          `SELECT 1 FROM users WHERE username = 'coder-k8s-operator' AND NOT deleted AND NOT is_system`,
        );
        assert.equal(listed.length, 1, "in Coder's user list");

        const wrongSecret = `${token.split('-')[0]}-${'x'.repeat(22)}`;
        assert.deepEqual(await coderTokenVerdict(db.adminURL, release, wrongSecret), {
          accepted: false,
          status: 401,
          detail: 'API key secret is invalid.',
        });
        const versions = () => sql(db.adminURL, `SELECT xmin::text FROM users UNION ALL SELECT xmin::text FROM api_keys ORDER BY 1`);
        const before = await versions();
        assert.equal((await ensure(db, { ...lifetime, existingToken: token })).rotated, false);
        assert.deepEqual(await versions(), before, 'a second reconcile writes nothing');
      });

      it(`${release}: replaces its token once 20 of its 30 days have passed, though Coder may push its expiry on with every use`, async () => {
        const db = await coderDatabase({ release });
        const issued = new Date();
        const at = (days: number) => new Date(issued.getTime() + days * day * 1000);
        const first = await ensure(db, { ...lifetime, now: issued });
        // The operator uses its token all the time; that release writes what its apikey.go writes per request.
        for (const days of [1, 5, 10, 15, 19.9]) assert.ok((await coderUsesToken(db.adminURL, release, first.token, at(days))).accepted);
        const [used] = await keys(db);
        const { subject } = (await coderTokenVerdict(db.adminURL, release, first.token, at(19.9))) as { subject: CoderSubject };
        assert.equal(
          used!.expires_at.getTime(),
          subject.refreshesExpiry ? at(19.9 + 30).getTime() : at(30).getTime(),
          subject.refreshesExpiry ? 'Coder moved the expiry on' : 'Coder left the expiry alone',
        );
        const kept = await ensure(db, { ...lifetime, now: at(19.9), existingToken: first.token });
        assert.deepEqual(
          kept,
          { token: first.token, rotated: false, expiresAt: at(30) },
          'kept before the renewal point, expiring as issued',
        );
        const renewed = await ensure(db, { ...lifetime, now: at(20), existingToken: first.token });
        assert.equal(renewed.rotated, true, 'replaced at the renewal point');
        assert.deepEqual(await coderTokenVerdict(db.adminURL, release, first.token, at(20)), {
          accepted: false,
          status: 401,
          detail: 'API key is invalid.',
        });
        assert.ok((await coderTokenVerdict(db.adminURL, release, renewed.token, at(20))).accepted);
      });
    }
  });
});
