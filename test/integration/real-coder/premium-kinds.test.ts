// The premium kinds against the real, unlicensed Coder server: CoderWorkspaceProxy meets Coder's own 403
// ("Workspace Proxy is a Premium feature. Contact sales!") and CoderProvisioner Coder's entitlements without
// external_provisioner_daemons. Each reports it in a condition, asks Coder again only at its re-check period
// (counted at the recording proxy in front of Coder: the operator's calls alone), and the operator keeps running.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderProvisionerClient, coderWorkspaceProxyClient } from '../../../generated/clients/index.ts';
import { startCoderApiDouble } from '../../harness/coder-api-double.ts';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectlOk } from '../../harness/kubectl.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';
import { eventually } from '../../harness/wait.ts';
import { aProvisioner } from '../../fixtures/coderprovisioner.ts';
import { aWorkspaceProxy } from '../../fixtures/coderworkspaceproxy.ts';

const ns = 'premium';
/** The re-check period of a failed proxy registration (coderworkspaceproxy/reconcile.ts). */
const proxyRecheckSeconds = 30;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type WithConditions = { status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } };
const conditionOf = (obj: WithConditions, type: string) => obj.status?.conditions?.find((c) => c.type === type);

describe('premium kinds on the unlicensed real Coder server', () => {
  let env: RealCoderEnvironment;

  before(async () => {
    env = await realCoderEnvironment({ recordCoderCalls: true });
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    await controlPlaneWithOperatorAccess(env, ns);
  });
  after(async () => {
    await env?.stop();
  });

  it('answers 403 "… is a Premium feature" on the routes of both kinds, the proxy routes as the unlicensed double does', async () => {
    const proxies = await env.coder.api('GET', '/api/v2/workspaceproxies');
    assert.deepEqual([proxies.status, proxies.body.message], [403, 'Workspace Proxy is a Premium feature. Contact sales!']);
    const double = await startCoderApiDouble({ tokens: ['double-owner'] });
    try {
      const fake = await fetch(new URL('/api/v2/workspaceproxies', double.url), { headers: { 'Coder-Session-Token': 'double-owner' } });
      assert.deepEqual([fake.status, ((await fake.json()) as { message: string }).message], [proxies.status, proxies.body.message]);
    } finally {
      await double.stop();
    }
    const keys = await env.coder.api('GET', `/api/v2/organizations/${env.coder.organization.id}/provisionerkeys`);
    assert.deepEqual([keys.status, keys.body.message], [403, 'External Provisioner Daemons is a Premium feature. Contact sales!']);
  });

  it('reports the proxy’s 403 and the provisioner’s missing entitlement in conditions, asks Coder again only at each re-check period, and keeps running', async (t) => {
    const proxies = coderWorkspaceProxyClient(env.cp.adminConfig());
    const provisioners = coderProvisionerClient(env.cp.adminConfig());
    await proxies.create(aWorkspaceProxy('eu-west').inNamespace(ns).withControlPlane('coder').manifest());
    await provisioners.create(aProvisioner('default').inNamespace(ns).manifest());

    const registered = await eventually(
      'ProxyRegistered False with Coder’s answer',
      async () => {
        const c = conditionOf(await proxies.get(ns, 'eu-west'), 'ProxyRegistered');
        return c?.status === 'False' ? c : undefined;
      },
      { timeoutMs: 90_000 },
    );
    assert.equal(registered.reason, 'RegistrationFailed');
    assert.equal(
      registered.message,
      'Registering workspace proxy "eu-west" in Coder failed: Coder API GET /api/v2/workspaceproxies/eu-west answered 403 Forbidden: ' +
        'Workspace Proxy is a Premium feature. Contact sales!',
    );
    const proxyReady = conditionOf(await proxies.get(ns, 'eu-west'), 'Ready');
    t.diagnostic(`proxy Ready: ${proxyReady?.status} ${proxyReady?.reason}: ${proxyReady?.message}`);
    assert.deepEqual([proxyReady?.status, proxyReady?.reason], ['False', 'NotRegistered']);

    const entitled = await eventually(
      'ExternalProvisionersEntitled False',
      async () => {
        const c = conditionOf(await provisioners.get(ns, 'default'), 'ExternalProvisionersEntitled');
        return c?.status === 'False' ? c : undefined;
      },
      { timeoutMs: 90_000 },
    );
    assert.equal(entitled.reason, 'NotEntitled');
    assert.match(entitled.message, /does not include external provisioner daemons \(external_provisioner_daemons\)/);
    const provisionerReady = conditionOf(await provisioners.get(ns, 'default'), 'Ready');
    t.diagnostic(`provisioner Ready: ${provisionerReady?.status} ${provisionerReady?.reason}: ${provisionerReady?.message}`);
    assert.deepEqual([provisionerReady?.status, provisionerReady?.reason], ['False', 'NotEntitled']);

    const from = new Date();
    const windowSeconds = 2 * proxyRecheckSeconds + 5;
    await sleep(windowSeconds * 1000);
    const all = env.coderCalls!.since(from);
    t.diagnostic(
      `calls Coder received from the operator in ${windowSeconds} s: ` +
        Object.entries(Object.groupBy(all, (c) => `${c.method} ${c.path.replace(/[0-9a-f-]{36}/g, '{id}')} ${c.status}`))
          .map(([k, v]) => `${k} ×${v!.length}`)
          .join(', '),
    );
    const proxyCalls = all.filter((c) => c.path.startsWith('/api/v2/workspaceproxies'));
    assert.ok(
      proxyCalls.length >= 1 && proxyCalls.length <= 3,
      `one proxy call per 30 s re-check, not a retry storm: ${proxyCalls.length}`,
    );
    assert.ok(
      proxyCalls.every((c) => c.status === 403),
      'every proxy call answered 403',
    );
    assert.deepEqual(
      all.filter((c) => c.path.includes('/provisionerkeys')),
      [],
      'no call to the premium provisioner key route',
    );
    assert.equal(env.operator.process.hasExited, false, 'the operator keeps running');
    assert.equal((await fetch(`${env.operator.probesUrl}/healthz`)).status, 200);
  });
});
