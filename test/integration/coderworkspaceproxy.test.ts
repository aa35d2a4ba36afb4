// CoderWorkspaceProxy end to end: the operator as its own process under its generated RBAC, a real control
// plane with controllers and kwok, a real PostgreSQL with Coder's tables (operator access), and the Coder API
// double, which holds the registered proxies.
import { grantOnly } from '../harness/namespaced-user.ts';
import { AppsV1Api, CoreV1Api, EventsV1Api, type V1Deployment, type V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, coderWorkspaceProxyClient, type CoderWorkspaceProxyClient } from '../../generated/clients/index.ts';
import type { CoderControlPlaneClient } from '../../generated/clients/codercontrolplane.ts';
import type { CoderWorkspaceProxy } from '../../generated/types/coderworkspaceproxy.ts';
import { secretsReferencedBy } from '../../src/controllers/shared/workload/pod-spec.ts';
import { apiStatus } from '../harness/api-status.ts';
import { assertNoSecretsShown } from '../harness/coder-object-suite.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { createCoderDatabase, query } from '../harness/coder-database.ts';
import { jsonEqual } from '../../src/runtime/equality.ts';
import { writeVerbs } from '../harness/audit.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { eventually } from '../harness/wait.ts';
import { expectRefusedChild } from '../harness/refused-child.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { aWorkspaceProxy } from '../fixtures/coderworkspaceproxy.ts';

const conditionJsonpath = (type: string) =>
  `jsonpath={range .status.conditions[?(@.type=="${type}")]}{.status} {.reason}: {.message}{"\\n"}{end}`;
const accessTimeout = { timeoutMs: 90_000 };
const operatorUser = 'system:serviceaccount:coder-system:coder-k8s';

describe('CoderWorkspaceProxy controller', () => {
  let env: OperatorEnvironment | undefined;
  let coder: CoderApiDouble;
  let admin: string;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let proxies: CoderWorkspaceProxyClient;
  let controlPlanes: CoderControlPlaneClient;
  /** Every token the double must know: a reset of the double forgets them. */
  const tokens: string[] = [];

  before(async () => {
    env = await operatorEnvironment();
    ({ coder, admin } = env);
    // A license with workspace proxies: without one Coder refuses every proxy route (real-coder/premium-kinds.test.ts).
    coder.state.entitlements.features.workspace_proxy = { entitlement: 'entitled', enabled: true };
    core = env.cp.adminConfig().makeApiClient(CoreV1Api);
    apps = env.cp.adminConfig().makeApiClient(AppsV1Api);
    proxies = coderWorkspaceProxyClient(env.cp.adminConfig());
    controlPlanes = coderControlPlaneClient(env.cp.adminConfig());
  });
  after(() => env?.stop());

  const namespace = async (name: string) => {
    await kubectlOk(admin, ['create', 'namespace', name]);
    return name;
  };
  const knowToken = (token: string) => {
    tokens.push(token);
    coder.addToken(token);
  };
  const secretToken = (secret: V1Secret, key = 'token') => Buffer.from(secret.data![key]!, 'base64').toString();
  const readSecret = (ns: string, name: string) => core.readNamespacedSecret({ namespace: ns, name });
  const exists = (read: Promise<unknown>) =>
    read.then(
      () => true,
      (err) => (apiStatus(err).code === 404 ? false : Promise.reject(err)),
    );

  /** Waits until the control plane's operator token Secret holds a token the double does not know yet, and teaches it to the double. */
  async function learnOperatorToken(ns: string, cp = 'coder'): Promise<string> {
    const token = await eventually(
      `a new operator token of ${ns}/${cp}`,
      async () => {
        const obj = await controlPlanes.get(ns, cp);
        if (!obj.status?.operatorAccessReady) return undefined;
        const value = secretToken(await readSecret(ns, `${cp}-operator-token`));
        return tokens.includes(value) ? undefined : value;
      },
      accessTimeout,
    );
    knowToken(token);
    return token;
  }

  /** A namespace with control plane "coder" on its own Coder database; its operator token is known to the double. */
  async function controlPlaneWithAccess(ns: string): Promise<string> {
    await namespace(ns);
    const url = await createCoderDatabase(env!.postgres);
    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'coder-db-app' }, stringData: { uri: url } } });
    await controlPlanes.create(aControlPlane('coder').inNamespace(ns).withDatabase('coder-db-app', 'uri').manifest());
    return learnOperatorToken(ns);
  }

  const condition = async (ns: string, name: string, type: string) =>
    (await kubectlOk(admin, ['-n', ns, 'get', 'coderworkspaceproxy', name, '-o', conditionJsonpath(type)])).trim();
  const waitCondition = (ns: string, name: string, type: string, prefix: string, timeoutMs = 60_000) =>
    eventually(
      `${type} ${prefix} on ${ns}/${name}`,
      async () => ((await condition(ns, name, type)).startsWith(prefix) ? true : undefined),
      {
        timeoutMs,
      },
    );
  const registeredProxy = (name: string) => coder.state.workspaceProxies.find((p) => p.proxy.name === name && !p.proxy.deleted);
  const deploymentsReferencing = async (ns: string, secret: string): Promise<string[]> =>
    (await apps.listNamespacedDeployment({ namespace: ns })).items
      .filter((d: V1Deployment) => JSON.stringify(d.spec?.template).includes(`"${secret}"`))
      .map((d) => d.metadata!.name!);
  /** Everything of a Secret a write would change. */
  const fingerprint = (s: V1Secret) =>
    JSON.stringify({
      resourceVersion: s.metadata?.resourceVersion,
      labels: s.metadata?.labels,
      annotations: s.metadata?.annotations,
      ownerReferences: s.metadata?.ownerReferences,
      finalizers: s.metadata?.finalizers,
      data: s.data,
      type: s.type,
    });
  const markedSecret = (name: string, destinations: string | undefined, data: Record<string, string>): V1Secret => ({
    metadata: {
      name,
      ...(destinations === undefined
        ? {}
        : { labels: { 'coder.com/credential': 'true' }, annotations: { 'coder.com/credential-destinations': destinations } }),
    },
    stringData: data,
  });

  it('registers through the control plane, runs the proxy until Ready, follows spec changes and deregisters on deletion', async (t) => {
    const ns = 'wsp-basic';
    const operatorToken = await controlPlaneWithAccess(ns);
    const created = new Date();
    await proxies.create(
      aWorkspaceProxy('eu-west')
        .inNamespace(ns)
        .withControlPlane('coder')
        .withSpec({ bootstrap: { displayName: 'Europe West' } })
        .manifest(),
    );
    const ready = await eventually(
      'the proxy registered and Ready (kwok)',
      async () => {
        const obj = await proxies.get(ns, 'eu-west');
        return obj.status?.registered && obj.status.phase === 'Ready' && obj.status.readyReplicas === 1 ? obj : undefined;
      },
      { timeoutMs: 90_000 },
    );
    const stored = registeredProxy('eu-west');
    assert.ok(stored, 'the double holds the proxy');
    assert.equal(stored.proxy.display_name, 'Europe West');
    assert.equal(ready.status!.proxyID, stored.proxy.id);
    assert.equal(ready.status!.proxyName, 'eu-west');
    assert.equal(ready.status!.primaryAccessURL, `http://coder.${ns}.svc.cluster.local:80`);
    assert.deepEqual(ready.status!.proxyTokenSecretRef, { name: 'eu-west-proxy-token', key: 'token' });
    assert.ok(ready.metadata.finalizers?.includes('coder.com/workspace-proxy-deregistration'));
    await kubectlOk(admin, ['-n', ns, 'wait', 'coderworkspaceproxy/eu-west', '--for=condition=Ready', '--timeout=60s']);
    assert.match(await condition(ns, 'eu-west', 'Ready'), /^True Available: /);
    assert.equal(await condition(ns, 'eu-west', 'Stalled'), '', 'no Stalled condition while Ready');
    for (const type of [
      'SpecValid',
      'CredentialSecretReady',
      'ControlPlaneReady',
      'OperatorAccessReady',
      'ProxyRegistered',
      'ChildrenOwned',
      'DeploymentReady',
    ]) {
      assert.match(await condition(ns, 'eu-west', type), /^True /, type);
    }
    // Once nothing changes, the operator writes nothing for the proxy.
    const proxyObjects = new Set(['eu-west', 'wsproxy-eu-west', 'eu-west-proxy-token']);
    const proxyWrites = async (since: Date) =>
      (await env!.cp.auditEvents({ username: operatorUser, since, verbs: writeVerbs })).filter(
        (e) => e.objectRef?.namespace === ns && proxyObjects.has(e.objectRef.name ?? '') && e.objectRef.resource !== 'events',
      );
    let version = '';
    await eventually('the proxy to stay unchanged for 3 s', async () => {
      const current = (await proxies.get(ns, 'eu-west')).metadata.resourceVersion!;
      if (current !== version) {
        version = current;
        await new Promise((r) => setTimeout(r, 3_000));
        return undefined;
      }
      return true;
    });
    t.diagnostic(
      `writes for the proxy from creation to Ready: ${(await proxyWrites(created)).map((e) => `${e.verb} ${e.objectRef!.resource}${e.objectRef!.subresource ? `/${e.objectRef!.subresource}` : ''}`).join(', ')}`,
    );
    const quietSince = new Date();
    await new Promise((r) => setTimeout(r, 10_000));
    assert.deepEqual(await proxyWrites(quietSince), [], 'no write in 10 s of quiet');

    const calls = coder.requests.filter((r) => r.path.startsWith('/api/v2/workspaceproxies'));
    assert.ok(calls.length > 0 && calls.every((r) => r.token === operatorToken), 'every proxy call carried the operator token');

    const secret = await readSecret(ns, 'eu-west-proxy-token');
    assert.equal(secretToken(secret), stored.token, 'the Secret holds the token Coder issued');
    assert.equal(secret.metadata!.labels!['coder.com/credential'], 'true');
    assert.equal(secret.metadata!.annotations!['coder.com/credential-destinations'], 'coderworkspaceproxy/eu-west');
    assert.deepEqual(
      secret.metadata!.ownerReferences!.map((r) => [r.kind, r.name, r.uid, r.controller]),
      [['CoderWorkspaceProxy', 'eu-west', ready.metadata.uid, true]],
    );

    const deployment = await apps.readNamespacedDeployment({ namespace: ns, name: 'wsproxy-eu-west' });
    const container = deployment.spec!.template.spec!.containers[0]!;
    assert.deepEqual(container.args, ['wsproxy', 'server', '--http-address=0.0.0.0:3001']);
    assert.deepEqual(JSON.parse(JSON.stringify(container.env)), [
      { name: 'CODER_PRIMARY_ACCESS_URL', value: `http://coder.${ns}.svc.cluster.local:80` },
      { name: 'CODER_PROXY_SESSION_TOKEN', valueFrom: { secretKeyRef: { name: 'eu-west-proxy-token', key: 'token' } } },
    ]);
    const service = await core.readNamespacedService({ namespace: ns, name: 'wsproxy-eu-west' });
    assert.deepEqual(
      service.spec!.ports!.map((p) => [p.name, p.port, p.targetPort]),
      [['http', 80, 3001]],
    );
    const events = await env!.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
    assert.ok(events.items.some((e) => e.reason === 'ProxyRegistered' && e.regarding?.name === 'eu-west'));

    // A spec change reaches the Deployment and Coder; the token stays.
    await proxies.mergePatch(ns, 'eu-west', {
      spec: { image: 'ghcr.io/coder/coder:v2.30.0', replicas: 2, derpOnly: true, bootstrap: { displayName: 'EU West' } },
    });
    await eventually('the Deployment and Coder to follow the spec', async () => {
      const d = await apps.readNamespacedDeployment({ namespace: ns, name: 'wsproxy-eu-west' });
      const c = d.spec!.template.spec!.containers[0]!;
      return (
        d.spec!.replicas === 2 &&
        c.image === 'ghcr.io/coder/coder:v2.30.0' &&
        c.args!.includes('--derp-only') &&
        registeredProxy('eu-west')?.proxy.display_name === 'EU West'
      );
    });
    assert.equal(registeredProxy('eu-west')!.token, stored.token, 'no new token was issued');

    await proxies.delete(ns, 'eu-west');
    await eventually('the proxy gone from Kubernetes (finalizer removed) and from Coder', async () => {
      const gone = !(await exists(proxies.get(ns, 'eu-west')));
      return gone && registeredProxy('eu-west') === undefined;
    });
    assert.ok(
      coder.requests.some(
        (r) => r.method === 'DELETE' && r.path === `/api/v2/workspaceproxies/${stored.proxy.id}` && r.token === operatorToken,
      ),
    );
  });

  it("makes the operator user owner in Coder's database while a proxy names its control plane, and organization-admin again once it is gone", async () => {
    const ns = 'wsp-roles';
    await namespace(ns);
    const url = await createCoderDatabase(env!.postgres);
    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'coder-db-app' }, stringData: { uri: url } } });
    await controlPlanes.create(aControlPlane('coder').inNamespace(ns).withDatabase('coder-db-app', 'uri').manifest());
    await learnOperatorToken(ns);
    const roles = async () => {
      const [user] = await query(url, `SELECT id, rbac_roles FROM users WHERE username = 'coder-k8s-operator'`);
      const members = await query(url, `SELECT roles FROM organization_members WHERE user_id = '${user!.id}'`);
      return { site: user!.rbac_roles, organization: members.map((m) => m.roles) };
    };
    const narrowed = { site: [], organization: [['organization-admin']] };
    const owner = { site: ['owner'], organization: [[]] };
    const accessMessage = async () =>
      (await kubectlOk(admin, ['-n', ns, 'get', 'codercontrolplane', 'coder', '-o', conditionJsonpath('OperatorAccessReady')])).trim();
    const statusRole = async () =>
      (await kubectlOk(admin, ['-n', ns, 'get', 'codercontrolplane', 'coder', '-o', 'jsonpath={.status.operatorRole}'])).trim();
    assert.deepEqual(await roles(), narrowed, 'nothing of this control plane needs owner');
    assert.match(await accessMessage(), /^True Ready: .*its Coder roles: organization-admin in every organization/);
    assert.equal(await statusRole(), 'organization-admin');

    await proxies.create(aWorkspaceProxy('roles').inNamespace(ns).withControlPlane('coder').manifest());
    await eventually('the operator user to become owner', async () => jsonEqual(await roles(), owner), { timeoutMs: 10_000 });
    await eventually('the condition to name the proxy', async () =>
      /its Coder roles: site role owner \(needed by CoderWorkspaceProxy roles\)/.test(await accessMessage()),
    );
    assert.equal(await statusRole(), 'owner', 'written with the condition, once Coder holds the role');
    await waitCondition(ns, 'roles', 'ProxyRegistered', 'True');

    await proxies.delete(ns, 'roles');
    await eventually(
      'the proxy gone from Kubernetes and Coder',
      async () => !(await exists(proxies.get(ns, 'roles'))) && !registeredProxy('roles'),
    );
    await eventually('the operator user to be organization-admin again', async () => jsonEqual(await roles(), narrowed), {
      timeoutMs: 10_000,
    });
    await eventually('status.operatorRole to say so', async () => (await statusRole()) === 'organization-admin');
  });

  it('issues a new token for its proxy when Coder holds it without display name or icon, sending every field Coder requires', async () => {
    const ns = 'wsp-regenerate';
    await controlPlaneWithAccess(ns);
    await proxies.create(aWorkspaceProxy('ap-south').inNamespace(ns).withControlPlane('coder').manifest());
    await waitCondition(ns, 'ap-south', 'ProxyRegistered', 'True Registered', 90_000);
    const own = registeredProxy('ap-south')!;
    // Coder holds it without display name or icon (as a proxy made with the API without them), and the token Secret
    // is lost: the operator must change the proxy to get a token, and Coder refuses an empty field.
    own.proxy.display_name = '';
    own.proxy.icon_url = '';
    const from = coder.requests.length;
    const patches = () => coder.requests.slice(from).filter((r) => r.method === 'PATCH');
    const issued = async (previous: string) => {
      await core.deleteNamespacedSecret({ namespace: ns, name: 'ap-south-proxy-token' });
      await eventually('a new token issued and stored', async () => {
        const secret = await readSecret(ns, 'ap-south-proxy-token').catch(() => undefined);
        return secret && secretToken(secret) !== previous && secretToken(secret) === registeredProxy('ap-south')!.token ? true : undefined;
      });
    };
    await issued(own.token);
    assert.deepEqual(
      patches().map((r) => [r.path, r.body]),
      [
        [
          `/api/v2/workspaceproxies/${own.proxy.id}`,
          { id: own.proxy.id, name: 'ap-south', display_name: 'ap-south', icon: '/emojis/1f5fa.png', regenerate_token: true },
        ],
      ],
    );
    assert.deepEqual(
      [registeredProxy('ap-south')!.proxy.display_name, registeredProxy('ap-south')!.proxy.icon_url],
      ['ap-south', '/emojis/1f5fa.png'],
    );

    // A display name Coder holds is kept when spec sets none, also when the token is issued again.
    registeredProxy('ap-south')!.proxy.display_name = 'Asia Pacific';
    await issued(registeredProxy('ap-south')!.token);
    assert.deepEqual(patches().at(-1)!.body, {
      id: own.proxy.id,
      name: 'ap-south',
      display_name: 'Asia Pacific',
      icon: '/emojis/1f5fa.png',
      regenerate_token: true,
    });
    assert.equal(registeredProxy('ap-south')!.proxy.display_name, 'Asia Pacific');
    assert.deepEqual(coder.violations, []);
  });

  /** A proxy a Coder admin registers directly with the API, as `coder wsproxy create` does; its id and token. */
  async function registeredByAdmin(name: string): Promise<{ id: string; token: string }> {
    const now = new Date().toISOString();
    const id = randomUUID();
    coder.state.users.push({
      id,
      username: `admin${coder.state.users.length}`,
      email: `admin${coder.state.users.length}@example.com`,
      created_at: now,
      updated_at: now,
      last_seen_at: now,
      status: 'active',
      login_type: 'password',
      organization_ids: [],
      roles: [{ name: 'owner', display_name: 'Owner' }],
    });
    const adminToken = `AdminToken${coder.state.users.length}-0123456789abcdefghij`;
    coder.addToken(adminToken, id);
    const answer = (await fetch(`${coder.url}/api/v2/workspaceproxies`, {
      method: 'POST',
      headers: { 'Coder-Session-Token': adminToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, display_name: 'Admin proxy', icon: '/emojis/1f3e2.png' }),
    }).then((r) => r.json())) as { proxy: { id: string }; proxy_token: string };
    return { id: answer.proxy.id, token: answer.proxy_token };
  }
  const proxyWrites = (id: string) =>
    coder.requests.filter((r) => (r.method === 'PATCH' || r.method === 'DELETE') && r.path === `/api/v2/workspaceproxies/${id}`);

  it('leaves a proxy an admin registered under that name alone: ProxyNameTaken, Stalled and an Event, and deletion keeps it', async () => {
    const ns = 'wsp-taken';
    await controlPlaneWithAccess(ns);
    await grantOnly(admin, ns, 'mallory', 'coderworkspaceproxies', ['create']);
    const admins = await registeredByAdmin('us-east');
    const mallory = await env!.cp.userKubeconfig('mallory');
    const manifest = JSON.stringify(aWorkspaceProxy('us-east').inNamespace(ns).withControlPlane('coder').manifest());
    const created = await kubectl(mallory, ['create', '-f', '-'], manifest);
    assert.equal(created.code, 0, created.stderr);

    await waitCondition(
      ns,
      'us-east',
      'ProxyRegistered',
      'False ProxyNameTaken: Workspace proxy "us-east" already exists in Coder and this object did not register it',
    );
    assert.match(await condition(ns, 'us-east', 'Ready'), /^False ProxyNameTaken: ProxyRegistered is False \(ProxyNameTaken\): /);
    assert.match(await condition(ns, 'us-east', 'Stalled'), /^True ProxyNameTaken: /);
    const intact = () => {
      const held = registeredProxy('us-east');
      assert.ok(held, "the admin's proxy is registered");
      assert.deepEqual([held.proxy.id, held.token, held.proxy.display_name], [admins.id, admins.token, 'Admin proxy']);
      assert.deepEqual(proxyWrites(admins.id), [], "no PATCH or DELETE of the admin's proxy reached Coder");
    };
    intact();
    const status = (await proxies.get(ns, 'us-east')).status!;
    assert.equal(status.proxyID, undefined);
    assert.equal(await exists(readSecret(ns, 'us-east-proxy-token')), false, 'no token Secret');
    const events = await env!.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
    assert.ok(events.items.some((e) => e.reason === 'ProxyNameTaken' && e.type === 'Warning' && e.regarding?.name === 'us-east'));

    await proxies.delete(ns, 'us-east');
    await eventually('the object gone', async () => !(await exists(proxies.get(ns, 'us-east'))));
    intact();
  });

  it('registers its proxy again once a Coder admin deleted it, and never takes the primary region for its own', async () => {
    const ns = 'wsp-deleted';
    const operatorToken = await controlPlaneWithAccess(ns);
    await proxies.create(aWorkspaceProxy('us-west').inNamespace(ns).withControlPlane('coder').manifest());
    await waitCondition(ns, 'us-west', 'ProxyRegistered', 'True Registered', 90_000);
    const first = registeredProxy('us-west')!;
    // `coder wsproxy delete us-west`: Coder marks the proxy deleted, and still answers it by id.
    const deleted = await fetch(`${coder.url}/api/v2/workspaceproxies/us-west`, {
      method: 'DELETE',
      headers: { 'Coder-Session-Token': operatorToken },
    });
    assert.equal(deleted.status, 200);
    await kubectlOk(admin, ['-n', ns, 'annotate', 'coderworkspaceproxy', 'us-west', 'example.com/poke=1']);
    const again = await eventually('a new proxy registered under the name, its token in the Secret', async () => {
      const current = registeredProxy('us-west');
      const status = (await proxies.get(ns, 'us-west')).status;
      const secret = await readSecret(ns, 'us-west-proxy-token');
      return current && current.proxy.id !== first.proxy.id && status?.proxyID === current.proxy.id && secretToken(secret) === current.token
        ? current
        : undefined;
    });
    assert.match(await condition(ns, 'us-west', 'ProxyRegistered'), /^True Registered: /);
    assert.notEqual(again.token, first.token);

    // An object named "primary": Coder answers that name with its primary region, which is nobody's to change.
    const from = coder.requests.length;
    await proxies.create(aWorkspaceProxy('primary').inNamespace(ns).withControlPlane('coder').manifest());
    await waitCondition(
      ns,
      'primary',
      'ProxyRegistered',
      'False ProxyNameTaken: Coder reserves the workspace proxy name "primary" for its primary region. Set spec.bootstrap.proxyName to another name.',
    );
    assert.deepEqual(
      coder.requests
        .slice(from)
        .filter((r) => r.path.startsWith('/api/v2/workspaceproxies') && /primary/i.test(`${r.path} ${JSON.stringify(r.body ?? null)}`)),
      [],
      'no proxy call for the reserved name',
    );
    assert.deepEqual(coder.violations, []);
  });

  it('keeps using a proxy registered outside the operator whose token is in a Secret marked for it', async () => {
    const ns = 'wsp-token-held';
    await controlPlaneWithAccess(ns);
    const outside = await registeredByAdmin('sa-east');
    await core.createNamespacedSecret({
      namespace: ns,
      body: markedSecret('sa-east-proxy-token', 'coderworkspaceproxy/sa-east', { token: outside.token }),
    });
    await proxies.create(aWorkspaceProxy('sa-east').inNamespace(ns).withControlPlane('coder').manifest());
    await waitCondition(ns, 'sa-east', 'ProxyRegistered', 'True Registered', 90_000);
    assert.equal((await proxies.get(ns, 'sa-east')).status!.proxyID, outside.id);
    assert.equal(registeredProxy('sa-east')!.token, outside.token, 'no new token was issued');
    assert.deepEqual(proxyWrites(outside.id), []);
  });

  it('never stores its token over a value it did not write in a Secret marked for it, until the documented command removes it', async () => {
    const ns = 'wsp-token-value';
    await controlPlaneWithAccess(ns);
    const shared = 'a-session-token-DO-NOT-LEAK';
    await core.createNamespacedSecret({
      namespace: ns,
      body: markedSecret('eu-west-proxy-token', 'coderworkspaceproxy/*', { token: shared }),
    });
    const from = coder.requests.length;
    await proxies.create(aWorkspaceProxy('eu-west').inNamespace(ns).withControlPlane('coder').manifest());
    await waitCondition(
      ns,
      'eu-west',
      'CredentialSecretReady',
      'False ValueNotOwned: Secret "wsp-token-value/eu-west-proxy-token" (key "token") holds a value that coderworkspaceproxy/eu-west did not write',
      90_000,
    );
    assert.equal(secretToken(await readSecret(ns, 'eu-west-proxy-token')), shared);
    assert.equal(registeredProxy('eu-west'), undefined, 'no proxy registered whose token could not be stored');
    assert.deepEqual(
      coder.requests.slice(from).filter((r) => r.method === 'POST' && r.path === '/api/v2/workspaceproxies'),
      [],
    );
    assert.deepEqual(await deploymentsReferencing(ns, 'eu-west-proxy-token'), [], 'no pod runs with a value it did not write');

    const doc = readFileSync('docs/how-to/credential-secrets.md', 'utf8');
    const command = doc.split('\n').find((l) => l.startsWith('kubectl -n coder patch secret eu-west-proxy-token'));
    assert.ok(command, 'the documented one-liner');
    await bash(command.replace('-n coder ', `-n ${ns} `), admin);
    await waitCondition(ns, 'eu-west', 'ProxyRegistered', 'True Registered', 90_000);
    const stored = await readSecret(ns, 'eu-west-proxy-token');
    assert.equal(secretToken(stored), registeredProxy('eu-west')!.token);
    assert.equal(stored.metadata!.annotations!['coder.com/credential-written-by'], 'token=coderworkspaceproxy/eu-west');
    assert.equal(stored.metadata!.ownerReferences, undefined, 'the Secret is not taken over');
  });

  it('reports each credential reason, leaves the Secret and pods alone, and recovers once the documented command marks it', async () => {
    const ns = await namespace('wsp-credentials');
    const primary = 'https://coder.example.com';
    const rows: { proxy: CoderWorkspaceProxy; secret?: V1Secret; reason: string; refused: string }[] = [
      {
        proxy: aWorkspaceProxy('eu-west').inNamespace(ns).withSessionToken(primary, 'eu-west-session-token').manifest(),
        secret: markedSecret('eu-west-session-token', undefined, { token: 'manual-token-1' }),
        reason: 'NotMarkedAsCredential',
        refused: 'eu-west-session-token',
      },
      {
        proxy: aWorkspaceProxy('other-dest').inNamespace(ns).withSessionToken(primary, 'other-dest-token').manifest(),
        secret: markedSecret('other-dest-token', 'coderworkspaceproxy/us-east, coderprovisioner/other-dest', { token: 'manual-token-2' }),
        reason: 'DestinationNotListed',
        refused: 'other-dest-token',
      },
      {
        proxy: aWorkspaceProxy('no-secret').inNamespace(ns).withSessionToken(primary, 'absent-token').manifest(),
        reason: 'SecretNotFound',
        refused: 'absent-token',
      },
      {
        proxy: aWorkspaceProxy('no-key').inNamespace(ns).withSessionToken(primary, 'no-key-token').manifest(),
        secret: markedSecret('no-key-token', 'coderworkspaceproxy/no-key', { other: 'x' }),
        reason: 'KeyNotFound',
        refused: 'no-key-token',
      },
      {
        proxy: aWorkspaceProxy('env-ref')
          .inNamespace(ns)
          .withSessionToken(primary, 'env-ref-token')
          .withExtraEnv({ name: 'EXTRA', valueFrom: { secretKeyRef: { name: 'env-unmarked', key: 'value' } } })
          .manifest(),
        secret: markedSecret('env-unmarked', undefined, { value: 'extra-secret' }),
        reason: 'NotMarkedAsCredential',
        refused: 'env-unmarked',
      },
    ];
    await core.createNamespacedSecret({
      namespace: ns,
      body: markedSecret('env-ref-token', 'coderworkspaceproxy/env-ref', { token: 'manual-token-3' }),
    });
    const before = new Map<string, string>();
    for (const row of rows) {
      if (row.secret) before.set(row.refused, fingerprint(await core.createNamespacedSecret({ namespace: ns, body: row.secret })));
      await proxies.create(row.proxy);
    }
    for (const row of rows) {
      const name = row.proxy.metadata.name!;
      await waitCondition(ns, name, 'CredentialSecretReady', `False ${row.reason}: `);
      const line = await condition(ns, name, 'CredentialSecretReady');
      assert.ok(line.includes(`"${ns}/${row.refused}"`), `the message names the Secret: ${line}`);
      for (const value of ['manual-token-1', 'manual-token-2', 'extra-secret']) assert.ok(!line.includes(value), line);
    }
    for (const row of rows) {
      if (row.secret) assert.equal(fingerprint(await readSecret(ns, row.refused)), before.get(row.refused), `${row.refused} is unchanged`);
      assert.deepEqual(await deploymentsReferencing(ns, row.refused), [], `no pod template references ${row.refused}`);
    }
    assert.deepEqual(
      (await apps.listNamespacedDeployment({ namespace: ns })).items.map((d) => d.metadata!.name),
      [],
      'no proxy got a Deployment',
    );
    const events = await env!.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
    assert.ok(events.items.some((e) => e.type === 'Warning' && e.reason === 'DestinationNotListed' && e.regarding?.name === 'other-dest'));
    assert.match(
      await condition(ns, 'eu-west', 'Ready'),
      /^False CredentialSecretNotReady: CredentialSecretReady is False \(NotMarkedAsCredential\)/,
    );
    assert.match(await condition(ns, 'eu-west', 'Stalled'), /^True CredentialSecretNotReady: /);

    // `<kind>/*` lets every proxy of the namespace use the Secret.
    await core.createNamespacedSecret({
      namespace: ns,
      body: markedSecret('shared-token', 'coderworkspaceproxy/*', { token: 'manual-token-4' }),
    });
    await proxies.create(aWorkspaceProxy('wildcard').inNamespace(ns).withSessionToken(primary, 'shared-token').manifest());
    await waitCondition(ns, 'wildcard', 'CredentialSecretReady', 'True CredentialAccepted');
    await eventually('the wildcard proxy Deployment', async () =>
      (await deploymentsReferencing(ns, 'shared-token')).includes('wsproxy-wildcard'),
    );

    // The command of docs/how-to/credential-secrets.md marks the first Secret; the running operator picks it up.
    const pid = env!.operator.process.pid;
    const doc = readFileSync('docs/how-to/credential-secrets.md', 'utf8');
    const command = doc.split('\n').find((l) => l.startsWith('kubectl -n coder patch secret eu-west-session-token'));
    assert.ok(command, 'the documented one-liner');
    await bash(command.replace('-n coder ', `-n ${ns} `), admin);
    await waitCondition(ns, 'eu-west', 'CredentialSecretReady', 'True CredentialAccepted');
    assert.equal(await condition(ns, 'eu-west', 'Stalled'), '', 'Stalled is removed once the user acted');
    await eventually('the eu-west Deployment with the token from the marked Secret', async () => {
      const d = await apps.readNamespacedDeployment({ namespace: ns, name: 'wsproxy-eu-west' });
      const env = d.spec!.template.spec!.containers[0]!.env!;
      return env.some((e) => e.name === 'CODER_PROXY_SESSION_TOKEN' && e.valueFrom?.secretKeyRef?.name === 'eu-west-session-token');
    });
    assert.equal(env!.operator.process.pid, pid, 'the operator was not restarted');
    const marked = await readSecret(ns, 'eu-west-session-token');
    assert.equal(secretToken(marked), 'manual-token-1', 'the operator wrote nothing to the Secret');
  });

  it('takes the Secret out of every pod template when its mark is removed, deleting only the Deployment it controls', async () => {
    const ns = 'wsp-credentials';
    const primary = 'https://coder.example.com';
    // A Deployment of the child's name that the operator did not create stays, whatever it references.
    const foreign: V1Deployment = {
      metadata: { name: 'wsproxy-squatted', labels: { app: 'squatted' } },
      spec: {
        selector: { matchLabels: { app: 'squatted' } },
        template: {
          metadata: { labels: { app: 'squatted' } },
          spec: {
            containers: [
              {
                name: 'c',
                image: 'example.com/other:1',
                env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'squatted-token', key: 'token' } } }],
              },
            ],
          },
        },
      },
    };
    await apps.createNamespacedDeployment({ namespace: ns, body: foreign });
    await core.createNamespacedSecret({ namespace: ns, body: markedSecret('squatted-token', undefined, { token: 'manual-token-5' }) });
    await proxies.create(aWorkspaceProxy('squatted').inNamespace(ns).withSessionToken(primary, 'squatted-token').manifest());
    await waitCondition(ns, 'squatted', 'CredentialSecretReady', 'False NotMarkedAsCredential');

    const templatesReferencing = async (secret: string) => {
      const deployments = (await apps.listNamespacedDeployment({ namespace: ns })).items;
      const replicaSets = (await apps.listNamespacedReplicaSet({ namespace: ns })).items;
      return [...deployments, ...replicaSets].filter((o) => secretsReferencedBy(o as never).has(secret)).map((o) => o.metadata!.name!);
    };
    assert.ok(
      (await templatesReferencing('eu-west-session-token')).includes('wsproxy-eu-west'),
      'the Deployment hands the Secret on before',
    );
    await kubectlOk(admin, ['-n', ns, 'label', 'secret', 'eu-west-session-token', 'coder.com/credential-']);
    await kubectlOk(admin, [
      '-n',
      ns,
      'patch',
      'secret',
      'eu-west-session-token',
      '--type=merge',
      '-p',
      '{"stringData":{"token":"manual-token-rotated"}}',
    ]);
    await waitCondition(
      ns,
      'eu-west',
      'CredentialSecretReady',
      `False NotMarkedAsCredential: Secret "${ns}/eu-west-session-token" (key "token") lacks the label coder.com/credential=true`,
    );
    assert.match(await condition(ns, 'eu-west', 'CredentialSecretReady'), /If coderworkspaceproxy\/eu-west may use it, add that label/);
    await eventually('no Deployment or ReplicaSet to reference Secret eu-west-session-token', async () =>
      (await templatesReferencing('eu-west-session-token')).length === 0 ? true : undefined,
    );
    const events = await env!.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
    assert.ok(events.items.some((e) => e.type === 'Warning' && e.reason === 'DeploymentRemoved' && e.regarding?.name === 'eu-west'));
    assert.ok((await templatesReferencing('squatted-token')).includes('wsproxy-squatted'), 'the foreign Deployment is left alone');
    assert.ok((await templatesReferencing('shared-token')).includes('wsproxy-wildcard'), "another proxy's Deployment stays");

    // Marking it again brings the Deployment back.
    await kubectlOk(admin, ['-n', ns, 'label', 'secret', 'eu-west-session-token', 'coder.com/credential=true']);
    await waitCondition(ns, 'eu-west', 'CredentialSecretReady', 'True CredentialAccepted');
    await eventually('the eu-west Deployment back', async () =>
      (await templatesReferencing('eu-west-session-token')).includes('wsproxy-eu-west') ? true : undefined,
    );
    await proxies.delete(ns, 'squatted');
    await apps.deleteNamespacedDeployment({ namespace: ns, name: 'wsproxy-squatted' });
  });

  it('registers with spec.bootstrap only through a marked credentials Secret, and sends nothing before', async () => {
    const ns = await namespace('wsp-bootstrap');
    const adminToken = 'bootstrap-admin-token';
    knowToken(adminToken);
    await core.createNamespacedSecret({ namespace: ns, body: markedSecret('proxy-admin', undefined, { token: adminToken }) });
    const before = fingerprint(await readSecret(ns, 'proxy-admin'));
    await proxies.create(aWorkspaceProxy('legacy').inNamespace(ns).withBootstrap(coder.url, 'proxy-admin').manifest());
    await waitCondition(ns, 'legacy', 'CredentialSecretReady', 'False NotMarkedAsCredential');
    assert.equal(fingerprint(await readSecret(ns, 'proxy-admin')), before);
    assert.ok(!coder.requests.some((r) => r.token === adminToken), 'the unmarked token was never sent');

    await kubectlOk(admin, ['-n', ns, 'label', 'secret', 'proxy-admin', 'coder.com/credential=true']);
    await kubectlOk(admin, ['-n', ns, 'annotate', 'secret', 'proxy-admin', 'coder.com/credential-destinations=coderworkspaceproxy/legacy']);
    await waitCondition(ns, 'legacy', 'ProxyRegistered', 'True Registered');
    const obj = await proxies.get(ns, 'legacy');
    assert.equal(obj.status?.primaryAccessURL, coder.url, 'the proxy connects to bootstrap.coderURL');
    assert.ok(coder.requests.some((r) => r.method === 'POST' && r.path === '/api/v2/workspaceproxies' && r.token === adminToken));
    assert.equal(secretToken(await readSecret(ns, 'legacy-proxy-token')), registeredProxy('legacy')!.token);
  });

  it('refuses a bootstrap token of two lines, naming spec.bootstrap.credentialsSecretRef, and never writes either line', async () => {
    const ns = await namespace('wsp-bootstrap-lines');
    const lines = ['BootstrapLineOne-7c1f9e2a0d', 'BootstrapLineTwo-4b8d0a63e5'];
    const marked = markedSecret('proxy-admin', 'coderworkspaceproxy/lines', { token: lines.join('\n') });
    await core.createNamespacedSecret({ namespace: ns, body: marked });
    await proxies.create(aWorkspaceProxy('lines').inNamespace(ns).withBootstrap(coder.url, 'proxy-admin').manifest());
    await waitCondition(ns, 'lines', 'SpecValid', 'False InvalidSpec');
    assert.match(
      await condition(ns, 'lines', 'SpecValid'),
      new RegExp(
        `^False InvalidSpec: spec\\.bootstrap\\.credentialsSecretRef: Secret "${ns}/proxy-admin" \\(key "token"\\) holds no usable ` +
          'token: the Coder session token contains a space, line break',
      ),
    );
    assert.match(
      await condition(ns, 'lines', 'CredentialSecretReady'),
      /^True CredentialAccepted:/,
      'the Secret consents; its value is what is wrong',
    );
    await eventually(`an InvalidSpec Event for ${ns}/lines`, async () =>
      (await core.listNamespacedEvent({ namespace: ns })).items.some(
        (e) =>
          e.involvedObject.name === 'lines' && e.reason === 'InvalidSpec' && e.message?.includes('spec.bootstrap.credentialsSecretRef'),
      )
        ? true
        : undefined,
    );
    assert.ok(!coder.requests.some((r) => lines.some((line) => r.token?.includes(line))), 'nothing was sent with the token');
    // Either line, or the whole value, in a condition, an Event or the operator log is a leak.
    await assertNoSecretsShown({ env: env!, core, token: lines[0]! }, proxies, ns, [lines[1]!, lines.join('\n')]);
  });

  it('moves to OperatorAccessReady False while the control plane has no operator access, and back', async () => {
    const ns = 'wsp-access';
    await controlPlaneWithAccess(ns);
    await proxies.create(aWorkspaceProxy('ap').inNamespace(ns).withControlPlane('coder').manifest());
    await waitCondition(ns, 'ap', 'ProxyRegistered', 'True Registered', 90_000);

    await controlPlanes.mergePatch(ns, 'coder', { spec: { operatorAccess: { disabled: true } } });
    await waitCondition(ns, 'ap', 'OperatorAccessReady', 'False OperatorAccessNotReady');
    assert.match(await condition(ns, 'ap', 'OperatorAccessReady'), new RegExp(`CoderControlPlane "${ns}/coder"`));
    assert.match(await condition(ns, 'ap', 'Ready'), /^False OperatorAccessNotReady: /);
    assert.ok(await exists(apps.readNamespacedDeployment({ namespace: ns, name: 'wsproxy-ap' })), 'the running proxy stays');

    await controlPlanes.mergePatch(ns, 'coder', { spec: { operatorAccess: { disabled: false } } });
    await learnOperatorToken(ns);
    await waitCondition(ns, 'ap', 'OperatorAccessReady', 'True OperatorAccessReady', 90_000);
    await waitCondition(ns, 'ap', 'ProxyRegistered', 'True Registered');

    // A token Secret the control plane does not own also turns operator access off.
    await kubectlOk(admin, ['-n', ns, 'create', 'secret', 'generic', 'foreign-token', '--from-literal=token=not-the-operator']);
    await controlPlanes.mergePatch(ns, 'coder', { spec: { operatorAccess: { generatedTokenSecretName: 'foreign-token' } } });
    await waitCondition(ns, 'ap', 'OperatorAccessReady', 'False OperatorAccessNotReady');
    await kubectlOk(admin, ['-n', ns, 'delete', 'secret', 'foreign-token']);
    await learnOperatorTokenFrom(ns, 'foreign-token');
    await waitCondition(ns, 'ap', 'OperatorAccessReady', 'True OperatorAccessReady', 90_000);
  });

  /** Like learnOperatorToken, for a control plane whose generatedTokenSecretName is `secret`. */
  async function learnOperatorTokenFrom(ns: string, secret: string): Promise<void> {
    const token = await eventually(
      `the operator token in ${ns}/${secret}`,
      async () => {
        const obj = await controlPlanes.get(ns, 'coder');
        if (!obj.status?.operatorAccessReady || obj.status.operatorTokenSecretRef?.name !== secret) return undefined;
        const value = secretToken(await readSecret(ns, secret));
        return tokens.includes(value) ? undefined : value;
      },
      accessTimeout,
    );
    knowToken(token);
  }

  it('refuses a cross-origin redirect on the proxy call; the other origin receives nothing', async () => {
    const ns = 'wsp-redirect';
    await controlPlaneWithAccess(ns);
    const elsewhere = await startCoderApiDouble();
    try {
      coder.redirect('/api/v2/workspaceproxies', { to: `${elsewhere.url}/api/v2/workspaceproxies`, status: 307 });
      await proxies.create(aWorkspaceProxy('redirected').inNamespace(ns).withControlPlane('coder').manifest());
      await waitCondition(ns, 'redirected', 'ProxyRegistered', 'False RegistrationFailed');
      assert.match(await condition(ns, 'redirected', 'ProxyRegistered'), /refusing redirect to a different origin than the coder URL/);
      assert.deepEqual(elsewhere.requests, [], 'the other origin received no request, and so no token');
      assert.match(readFileSync(env!.operator.logFile, 'utf8'), /refusing redirect to a different origin than the coder URL/);
      assert.ok(!(await exists(readSecret(ns, 'redirected-proxy-token'))), 'no token Secret without a registration');
      assert.deepEqual(await deploymentsReferencing(ns, 'redirected-proxy-token'), []);
    } finally {
      coder.reset();
      for (const token of tokens) coder.addToken(token);
      coder.state.entitlements.features.workspace_proxy = { entitlement: 'entitled', enabled: true };
      await elsewhere.stop();
    }
    // Without the redirect the next attempt (every 30 s) registers it.
    await waitCondition(ns, 'redirected', 'ProxyRegistered', 'True Registered', 60_000);
  });

  it('runs the sample next to the control-plane sample', async () => {
    await namespace('coder');
    await kubectlOk(admin, ['apply', '-f', 'config/samples/coder_v1alpha1_codercontrolplane.yaml']);
    const url = await createCoderDatabase(env!.postgres);
    await core.createNamespacedSecret({ namespace: 'coder', body: { metadata: { name: 'coder-db-app' }, stringData: { uri: url } } });
    await controlPlanes.mergePatch('coder', 'coder', { spec: { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } } });
    await learnOperatorToken('coder');
    await kubectlOk(admin, ['apply', '-f', 'config/samples/coder_v1alpha1_coderworkspaceproxy.yaml']);
    const sample = await eventually(
      'the sample proxy registered and Ready',
      async () => {
        const obj = await proxies.get('coder', 'eu-west');
        return obj.status?.registered && obj.status.phase === 'Ready' ? obj : undefined;
      },
      { timeoutMs: 90_000 },
    );
    const secret = await readSecret('coder', sample.status!.proxyTokenSecretRef!.name);
    assert.equal(secret.metadata!.labels!['coder.com/credential'], 'true');
    assert.equal(secret.metadata!.annotations!['coder.com/credential-destinations'], 'coderworkspaceproxy/eu-west');
  });

  it('reports a child the API server refuses, and becomes Ready again once the spec is fixed', async () => {
    await expectRefusedChild(admin, {
      kind: 'coderworkspaceproxy',
      namespace: 'coder',
      name: 'eu-west',
      refusedSpec: { replicas: -1 },
      message: /Deployment\.apps "wsproxy-eu-west" is invalid: spec\.replicas: Invalid value: -1/,
      repairSpec: { replicas: 1 },
    });
  });
});

function bash(script: string, kubeconfig: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', script], { env: { ...process.env, KUBECONFIG: kubeconfig } }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}
