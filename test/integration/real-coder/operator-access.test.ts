// Operator access against the real Coder server: the operator, under its generated role, bootstraps its
// user and token into the database Coder migrated itself, and Coder accepts that token for the calls the
// operator then makes, lists the user to its admins, refuses a replaced or expired token, and the operator
// never adopts a coder-k8s-operator user made through Coder's API. The model for the other real-Coder
// suites: one server per file, started in before(); the tests run in order on it.
import assert from 'node:assert/strict';
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { coderControlPlaneClient } from '../../../generated/clients/index.ts';
import { CoderClient } from '../../../src/coder/client.ts';
import { coderTokenVerdict } from '../../harness/coder-token-verdict.ts';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectlOk } from '../../harness/kubectl.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';
import { createEchoTemplate } from '../../harness/real-coder-templates.ts';
import { eventually } from '../../harness/wait.ts';

const ns = 'access';

describe('operator access on the real Coder server', () => {
  let env: RealCoderEnvironment;
  let token: string;
  let pokes = 0;

  before(async () => {
    env = await realCoderEnvironment();
  });
  after(async () => {
    await env?.stop();
  });

  async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    const db = new pg.Client({ connectionString: env.coder.databaseURL });
    await db.connect();
    try {
      return (await db.query<T>(text, params)).rows;
    } finally {
      await db.end();
    }
  }

  /** GET /api/v2/users/me with `sessionToken`, as the operator's client sends it. */
  const me = (sessionToken: string) => env.coder.api('GET', '/api/v2/users/me', { token: sessionToken });

  /** An annotation on the control plane: a change that reconciles it now rather than at its next requeue. */
  async function reconcileNow(): Promise<void> {
    await coderControlPlaneClient(env.cp.adminConfig()).mergePatch(ns, 'coder', {
      metadata: { annotations: { 'test.coder.com/poke': String(++pokes) } },
    });
  }

  async function secretToken(): Promise<string> {
    const secret = await env.cp
      .adminConfig()
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
    return Buffer.from(secret.data!.token!, 'base64').toString();
  }

  const newTokenThan = (old: string) =>
    eventually(`a new token in Secret ${ns}/coder-operator-token`, async () => {
      const current = await secretToken();
      return current !== old ? current : undefined;
    });

  const accessCondition = async () =>
    (await coderControlPlaneClient(env.cp.adminConfig()).get(ns, 'coder')).status?.conditions?.find(
      (c) => c.type === 'OperatorAccessReady',
    );

  it("mints a token in Coder's own schema that the server accepts for every call the operator makes", async () => {
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    ({ token } = await controlPlaneWithOperatorAccess(env, ns));
    const coder = new CoderClient({ baseURL: env.coder.url, token });
    const user = await coder.getCurrentUser();
    assert.equal(user.username, 'coder-k8s-operator');
    assert.deepEqual(
      (user.roles ?? []).map((r) => r.name),
      [],
      'no site role: nothing of this control plane needs owner',
    );
    assert.equal((await coder.request('GET', '/api/v2/users/{user}', { params: { user: user.id } })).id, user.id);
    assert.ok(typeof (await coder.getEntitlements()).features === 'object');
    const org = await coder.request('GET', '/api/v2/organizations/{organization}', { params: { organization: env.coder.organization.id } });
    assert.equal(org.name, 'coder');

    // A template the first owner made; the operator reads it and builds a workspace of it.
    const template = await createEchoTemplate(env.coder, 'access-echo');
    assert.ok((await coder.request('GET', '/api/v2/templates')).some((t) => t.id === template.id));
    const byName = await coder.request('GET', '/api/v2/organizations/{organization}/templates/{templateName}', {
      params: { organization: org.id, templateName: template.name },
    });
    assert.equal(byName.id, template.id);
    assert.equal((await coder.request('GET', '/api/v2/templates/{template}/versions', { params: { template: template.id } })).length, 1);
    const workspace = await coder.request('POST', '/api/v2/users/{user}/workspaces', {
      params: { user: 'me' },
      body: { name: 'access-ws', template_id: template.id },
    });
    const buildEnded = (transition: string) =>
      eventually(`the ${transition} build of workspace access-ws to succeed`, async () => {
        const ws = await coder.request('GET', '/api/v2/workspaces/{workspace}', {
          params: { workspace: workspace.id },
          query: { include_deleted: true },
        });
        const build = ws.latest_build;
        if (build.transition === transition && ['failed', 'canceled'].includes(build.job.status)) {
          assert.fail(`the ${transition} build ended ${build.job.status}: ${build.job.error}`);
        }
        return build.transition === transition && build.job.status === 'succeeded' ? ws : undefined;
      });
    await buildEnded('start');
    const workspaces = await coder.request('GET', '/api/v2/workspaces');
    assert.ok(workspaces.workspaces.some((w) => w.id === workspace.id));
    for (const transition of ['stop', 'delete'] as const) {
      await coder.request('POST', '/api/v2/workspaces/{workspace}/builds', { params: { workspace: workspace.id }, body: { transition } });
      await buildEnded(transition);
    }
    const builds = await coder.request('GET', '/api/v2/workspaces/{workspace}/builds', { params: { workspace: workspace.id } });
    assert.deepEqual(builds.map((b) => b.transition).sort(), ['delete', 'start', 'stop']);
  });

  it('holds organization-admin, not owner: Coder lets it act for other users in the organization and refuses the owner-only calls, until the control plane needs owner', async () => {
    const coder = new CoderClient({ baseURL: env.coder.url, token });
    const org = env.coder.organization.id;
    const members = await env.coder.ok('GET', `/api/v2/organizations/${org}/members`);
    const own = members.find((m: { username: string }) => m.username === 'coder-k8s-operator');
    assert.deepEqual(
      own.roles.map((r: { name: string }) => r.name),
      ['organization-admin'],
    );
    assert.match((await accessCondition())?.message ?? '', /its Coder roles: organization-admin in every organization/);

    // A workspace for another user (the first owner), as the aggregated API and the MCP tools create one.
    const template = await createEchoTemplate(env.coder, 'roles-echo');
    const other = env.coder.owner.username;
    const ws = await coder.request('POST', '/api/v2/users/{user}/workspaces', {
      params: { user: other },
      body: { name: 'for-owner', template_id: template.id },
    });
    assert.equal(ws.owner_name, other);
    await eventually('the build for the other user to succeed', async () => {
      const got = await env.coder.ok('GET', `/api/v2/workspaces/${ws.id}`);
      if (['failed', 'canceled'].includes(got.latest_build.job.status)) assert.fail(got.latest_build.job.error);
      return got.latest_build.job.status === 'succeeded';
    });

    // Owner only: licenses (enterprise/coderd/licenses.go postLicense authorizes before it reads the JWT, so
    // the first owner gets 400 for the same body), another user's roles (coderd/users.go userRoles).
    const license = { body: { license: 'not-a-jwt' } };
    const refusedLicense = await env.coder.api('POST', '/api/v2/licenses', { ...license, token });
    assert.equal(refusedLicense.status, 403);
    assert.equal((await env.coder.api('POST', '/api/v2/licenses', license)).status, 400, "the first owner's answer");
    const ownerRoles = await env.coder.api('GET', `/api/v2/users/${env.coder.owner.id}/roles`, { token });
    assert.equal(ownerRoles.status, 404);
    // Unlicensed, Coder refuses workspace proxies and provisioner keys to every role alike ("… is a Premium
    // feature"), before any role check: the narrowed role changes nothing there.
    for (const [method, path] of [
      ['POST', '/api/v2/workspaceproxies'],
      ['GET', `/api/v2/organizations/${org}/provisionerkeys`],
      ['POST', `/api/v2/organizations/${org}/provisionerkeys`],
    ] as const) {
      const body = method === 'POST' ? { body: { name: 'roles' } } : {};
      const asOperator = await env.coder.api(method, path, { token, ...body });
      const asOwner = await env.coder.api(method, path, body);
      assert.deepEqual([asOperator.status, asOperator.body.message], [asOwner.status, asOwner.body.message], `${method} ${path}`);
      assert.equal(asOperator.status, 403);
    }

    // A license Secret makes the operator owner within seconds, and Coder then reads the license body (400).
    const core = env.cp.adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'roles-license' }, stringData: { license: 'not-a-jwt' } },
    });
    const controlPlanes = coderControlPlaneClient(env.cp.adminConfig());
    await controlPlanes.mergePatch(ns, 'coder', { spec: { licenseSecretRef: { name: 'roles-license', key: 'license' } } });
    await eventually(
      'the operator user to become owner',
      async () => {
        const answer = await me(token);
        return answer.body.roles?.some((r: { name: string }) => r.name === 'owner');
      },
      { timeoutMs: 15_000 },
    );
    assert.equal((await env.coder.api('POST', '/api/v2/licenses', { ...license, token })).status, 400);
    assert.match((await accessCondition())?.message ?? '', /its Coder roles: site role owner \(needed by spec.licenseSecretRef\)/);

    await controlPlanes.mergePatch(ns, 'coder', { spec: { licenseSecretRef: null } });
    await eventually(
      'the operator user to be organization-admin again',
      async () => {
        const answer = await me(token);
        return answer.status === 200 && (answer.body.roles ?? []).length === 0;
      },
      { timeoutMs: 15_000 },
    );
    assert.equal((await env.coder.api('POST', '/api/v2/licenses', { ...license, token })).status, 403);
    await coder.request('POST', '/api/v2/workspaces/{workspace}/builds', { params: { workspace: ws.id }, body: { transition: 'delete' } });
  });

  it("agrees with the test harness's reading of apikey.go: the real server accepts and refuses what coderTokenVerdict does", async () => {
    const accepted = await coderTokenVerdict(env.coder.databaseURL, env.coder.version, token);
    assert.ok(accepted.accepted && accepted.subject.fullScope && accepted.subject.refreshesExpiry);
    assert.equal((await me(token)).status, 200);
    const wrongSecret = `${token.split('-')[0]}-${'x'.repeat(22)}`;
    const refused = await coderTokenVerdict(env.coder.databaseURL, env.coder.version, wrongSecret);
    const answer = await me(wrongSecret);
    assert.deepEqual([answer.status, answer.body.detail], [401, 'API key secret is invalid.']);
    assert.deepEqual(refused, { accepted: false, status: 401, detail: 'API key secret is invalid.' });
  });

  it("lists the operator's user to Coder's admins: GET /api/v2/users shows it to the first owner as an active user", async () => {
    const answer = await env.coder.ok('GET', '/api/v2/users');
    const listed = answer.users.find((u: { username: string }) => u.username === 'coder-k8s-operator');
    assert.ok(listed, `not in the user list: ${answer.users.map((u: { username: string }) => u.username).join(', ')}`);
    assert.deepEqual(
      [listed.status, listed.login_type, listed.email, listed.roles.map((r: { name: string }) => r.name)],
      ['active', 'none', 'coder-k8s-operator@coder-k8s.invalid', []],
    );
    const members = await env.coder.ok('GET', `/api/v2/organizations/${env.coder.organization.id}/members`);
    assert.ok(
      members.some((m: { username: string }) => m.username === 'coder-k8s-operator'),
      'a member of the default organization',
    );
  });

  it('replaces its token once 20 days old although Coder moves the expiry on with every use; Coder then refuses the old token (401)', async () => {
    const [id] = token.split('-');
    // As if the token was issued 21 days ago and last used two hours ago, with 29 days left.
    await sql(
      `UPDATE api_keys SET created_at = now() - interval '21 days', last_used = now() - interval '2 hours',
                           expires_at = now() + interval '29 days' WHERE id = $1`,
      [id],
    );
    assert.equal((await me(token)).status, 200);
    const [row] = await sql<{ left_seconds: number; lifetime_seconds: string }>(
      `SELECT extract(epoch FROM expires_at - now())::float AS left_seconds, lifetime_seconds FROM api_keys WHERE id = $1`,
      [id],
    );
    assert.ok(
      row!.left_seconds > Number(row!.lifetime_seconds) - 60,
      `v2.26.1 moved expires_at to now + lifetime_seconds on use (${row!.left_seconds} s left)`,
    );

    await reconcileNow();
    const renewed = await newTokenThan(token);
    const old = await me(token);
    assert.deepEqual([old.status, old.body.detail], [401, 'API key is invalid.'], 'the replaced token is gone from Coder');
    const fresh = await me(renewed);
    assert.deepEqual([fresh.status, fresh.body.username], [200, 'coder-k8s-operator']);
    const events = await env.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
    const rotated = events.items.find((e) => e.reason === 'OperatorTokenRotated');
    assert.match(rotated?.note ?? '', /due for renewal \(20 of its 30 days passed\)/, 'the Event says why');
    token = renewed;
  });

  it('replaces a token that expired: Coder refuses it (401) and accepts the one the operator puts in the Secret', async () => {
    await sql(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [token.split('-')[0]]);
    const expired = await me(token);
    assert.equal(expired.status, 401);
    assert.match(expired.body.detail, /^API key expired at /);
    await reconcileNow();
    const renewed = await newTokenThan(token);
    assert.equal((await me(renewed)).status, 200);
    assert.equal((await me(token)).status, 401);
    token = renewed;
  });

  it('never adopts a coder-k8s-operator user made through Coder: refuses it until it is gone, then makes its own', async () => {
    // An admin deletes the operator's user in Coder, and someone makes a user of that name through the API.
    const own = (await env.coder.ok('GET', '/api/v2/users/coder-k8s-operator')).id as string;
    await env.coder.ok('DELETE', `/api/v2/users/${own}`);
    assert.equal((await me(token)).status, 401, "a deleted user's token is refused");
    const mallory = await env.coder.ok('POST', '/api/v2/users', {
      body: {
        username: 'coder-k8s-operator',
        email: 'mallory@example.com',
        password: 'Mallory-password-1!',
        organization_ids: [env.coder.organization.id],
      },
    });
    await reconcileNow();
    const refused = await eventually('OperatorAccessReady False UserNotCreatedByOperator', async () => {
      const c = await accessCondition();
      return c?.reason === 'UserNotCreatedByOperator' ? c : undefined;
    });
    assert.equal(refused.status, 'False');
    assert.match(refused.message ?? '', /a Coder user named coder-k8s-operator exists that the operator did not create/);
    const roles = await env.coder.ok('GET', `/api/v2/users/${mallory.id}/roles`);
    assert.deepEqual(roles.roles, [], 'no site role given to that user');
    assert.deepEqual(await sql(`SELECT token_name FROM api_keys WHERE user_id = $1`, [mallory.id]), [], 'no token issued to it');

    await env.coder.ok('DELETE', `/api/v2/users/${mallory.id}`);
    await reconcileNow();
    const renewed = await newTokenThan(token);
    const answer = await me(renewed);
    assert.deepEqual([answer.status, answer.body.username], [200, 'coder-k8s-operator']);
    assert.notEqual(answer.body.id, own, 'a user of its own, made anew');
    assert.equal((await accessCondition())?.status, 'True');
  });
});
