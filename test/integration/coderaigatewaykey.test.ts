// CoderAIGatewayKey end to end: the operator as its own process under its generated RBAC, a control plane
// with operator access (real PostgreSQL), and the Coder API double serving AI Gateway keys from v2.36.
// Resync period 6 s.
import { CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { coderAIGatewayKeyClient, coderControlPlaneClient, type CoderAIGatewayKeyClient } from '../../generated/clients/index.ts';
import { writeVerbs } from '../harness/audit.ts';
import { createCoderDatabase } from '../harness/coder-database.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { eventually } from '../harness/wait.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { aGatewayKey } from '../fixtures/coderaigatewaykey.ts';

const ns = 'gateway';
const resyncSeconds = 6;
const operatorUser = 'system:serviceaccount:coder-system:coder-k8s';
const keysPath = '/api/v2/ai-gateway/keys';

describe('CoderAIGatewayKey controller', () => {
  let env: OperatorEnvironment;
  let core: CoreV1Api;
  let keys: CoderAIGatewayKeyClient;
  const secretValues: string[] = [];

  before(async () => {
    env = await operatorEnvironment({ operatorArgs: [`--coder-resync-period=${resyncSeconds}`] });
    core = env.cp.adminConfig().makeApiClient(CoreV1Api);
    keys = coderAIGatewayKeyClient(env.cp.adminConfig());
    const controlPlanes = coderControlPlaneClient(env.cp.adminConfig());
    env.coder.state.buildInfo.version = 'v2.36.0';
    env.coder.state.entitlements.features.aibridge = { entitlement: 'entitled', enabled: true };
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'coder-db-app' }, stringData: { uri: await createCoderDatabase(env.postgres) } },
    });
    await controlPlanes.create(aControlPlane('coder').inNamespace(ns).withDatabase('coder-db-app', 'uri').manifest());
    await eventually(
      'operator access of the control plane',
      async () => (await controlPlanes.get(ns, 'coder')).status?.operatorAccessReady === true,
      {
        timeoutMs: 120_000,
      },
    );
    const token = Buffer.from(
      (await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' })).data!.token!,
      'base64',
    ).toString();
    env.coder.addToken(token);
    secretValues.push(token);
  });
  after(() => {
    for (const k of env?.coder.state.aiGatewayKeys ?? []) secretValues.push(k.value);
    return env?.stop();
  });

  const condition = async (name: string, type: string) => {
    const c = (await keys.get(ns, name)).status?.conditions?.find((x) => x.type === type);
    return c ? `${c.status} ${c.reason}` : 'absent';
  };
  const waitCondition = (name: string, type: string, expected: string, timeoutMs = 30_000) =>
    eventually(
      `${name}: ${type} ${expected}`,
      async () => {
        const seen = await condition(name, type);
        if (seen !== expected) throw new Error(`saw ${seen}`);
        return seen;
      },
      { timeoutMs },
    );
  const inCoder = (name: string) => env.coder.state.aiGatewayKeys.find((k) => k.key.name === name);
  const secretData = async (name: string, key = 'key') => {
    const secret = await core.readNamespacedSecret({ namespace: ns, name });
    const value = secret.data?.[key];
    return { secret, value: value === undefined ? undefined : Buffer.from(value, 'base64').toString() };
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('mints the key, writes it to a Secret it creates and owns, and reports Ready Available', async () => {
    await keys.create(
      aGatewayKey('standalone')
        .inNamespace(ns)
        .withSpec({ destinations: [{ name: 'gateway-key' }], rotation: { gracePeriod: '0s' } })
        .manifest(),
    );
    await waitCondition('standalone', 'Ready', 'True Available');
    const obj = await keys.get(ns, 'standalone');
    const key = inCoder('standalone')!;
    const { secret, value } = await secretData('gateway-key');
    assert.equal(value, key.value);
    assert.equal(secret.metadata!.labels!['coder.com/credential'], 'true');
    assert.equal(secret.metadata!.annotations!['coder.com/credential-destinations'], 'coderaigatewaykey/standalone');
    assert.ok(secret.metadata!.ownerReferences!.some((r) => r.kind === 'CoderAIGatewayKey' && r.uid === obj.metadata.uid && r.controller));
    assert.deepEqual(
      [obj.status!.coderID, obj.status!.coderKeyName, obj.status!.rotation, obj.status!.keyPrefix],
      [key.key.id, 'standalone', 0, key.value.slice(0, 11)],
    );
    assert.match(obj.status!.secretHash!, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(obj.status!.destinations, [{ name: 'gateway-key', key: 'key', managed: true }]);
    assert.equal(await condition('standalone', 'Connected'), 'False NeverUsed');
    assert.ok(!JSON.stringify(obj.status).includes(key.value));
  });

  it('reports a heartbeat as Connected', async () => {
    inCoder('standalone')!.key.last_used_at = new Date().toISOString();
    await waitCondition('standalone', 'Connected', 'True HeartbeatRecent', (resyncSeconds + 10) * 1000);
    assert.ok((await keys.get(ns, 'standalone')).status!.lastUsedAt);
  });

  it('mints a replacement when a destination loses the key, and deletes the old key after the grace period', async () => {
    const old = inCoder('standalone')!;
    const { secret } = await secretData('gateway-key');
    await core.replaceNamespacedSecret({
      namespace: ns,
      name: 'gateway-key',
      body: { ...secret, data: { key: Buffer.from('tampered').toString('base64') } },
    });
    await eventually(
      'the replacement key in the Secret',
      async () => (await secretData('gateway-key')).value === inCoder('standalone-r1')?.value,
    );
    const obj = await eventually('the status naming the new key', async () => {
      const o = await keys.get(ns, 'standalone');
      return o.status?.coderKeyName === 'standalone-r1' ? o : undefined;
    });
    assert.equal(obj.status!.rotation, 1);
    await eventually('the old key deleted in Coder', async () => !env.coder.state.aiGatewayKeys.some((k) => k.key.id === old.key.id), {
      timeoutMs: (resyncSeconds + 10) * 1000,
    });
    await eventually('previousKey cleared', async () => (await keys.get(ns, 'standalone')).status?.previousKey === undefined);
    await waitCondition('standalone', 'Ready', 'True Available');
  });

  it('writes into an existing Secret only when it is marked for the key', async () => {
    const from = env.coder.requests.length;
    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'shared' }, stringData: { other: 'keep-me' } } });
    await keys.create(
      aGatewayKey('consent')
        .inNamespace(ns)
        .withSpec({ destinations: [{ name: 'shared', key: 'gw' }] })
        .manifest(),
    );
    await waitCondition('consent', 'CredentialSecretReady', 'False NotMarkedAsCredential');
    assert.equal(await condition('consent', 'Ready'), 'False CredentialSecretNotReady');
    await kubectlOk(env.admin, ['-n', ns, 'label', 'secret', 'shared', 'coder.com/credential=true']);
    await waitCondition('consent', 'CredentialSecretReady', 'False DestinationNotListed');
    assert.deepEqual(
      env.coder.requests.slice(from).filter((r) => r.method === 'POST' && r.path === keysPath),
      [],
      'no key minted while the destination refuses it',
    );
    await kubectlOk(env.admin, ['-n', ns, 'annotate', 'secret', 'shared', 'coder.com/credential-destinations=coderaigatewaykey/consent']);
    await waitCondition('consent', 'Ready', 'True Available');
    const { secret, value } = await secretData('shared', 'gw');
    assert.equal(value, inCoder('consent')!.value);
    assert.equal(Buffer.from(secret.data!.other!, 'base64').toString(), 'keep-me');
    assert.equal(secret.metadata!.ownerReferences, undefined, 'a consenting Secret is not adopted');
    assert.deepEqual((await keys.get(ns, 'consent')).status!.destinations, [{ name: 'shared', key: 'gw', managed: false }]);
  });

  it('leaves a key of the same name alone, and reports CoderVersionUnsupported before v2.36', async () => {
    env.coder.state.aiGatewayKeys.push({
      key: { id: crypto.randomUUID(), name: 'taken', key_prefix: 'xxxxxxxxxxx', created_at: new Date().toISOString(), last_used_at: null },
      value: 'x'.repeat(43),
    });
    await keys.create(
      aGatewayKey('taken')
        .inNamespace(ns)
        .withSpec({ destinations: [{ name: 'taken-key' }] })
        .manifest(),
    );
    await waitCondition('taken', 'Synced', 'False AlreadyExists');
    await assert.rejects(core.readNamespacedSecret({ namespace: ns, name: 'taken-key' }), 'nothing written');

    env.coder.state.buildInfo.version = 'v2.35.2';
    await waitCondition('standalone', 'Supported', 'False CoderVersionUnsupported', (resyncSeconds + 10) * 1000);
    assert.equal(await condition('standalone', 'Ready'), 'False Unsupported');
    env.coder.state.buildInfo.version = 'v2.36.0';
    await waitCondition('standalone', 'Ready', 'True Available', (resyncSeconds + 10) * 1000);
  });

  it('reports SecretWriteFailed when a destination cannot be written, and later writes the same key', async () => {
    const marks = {
      labels: { 'coder.com/credential': 'true' },
      annotations: { 'coder.com/credential-destinations': 'coderaigatewaykey/frozen' },
    };
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'frozen', ...marks }, immutable: true, stringData: { other: 'x' } },
    });
    await keys.create(
      aGatewayKey('frozen')
        .inNamespace(ns)
        .withSpec({ destinations: [{ name: 'frozen' }] })
        .manifest(),
    );
    await eventually('a Warning Event SecretWriteFailed', async () =>
      (await core.listNamespacedEvent({ namespace: ns })).items.find(
        (e) => e.involvedObject.name === 'frozen' && e.reason === 'SecretWriteFailed',
      ),
    );
    assert.ok(inCoder('frozen'), 'the key stays in Coder');
    // Once the Secret is gone, the operator creates its own in its place.
    await core.deleteNamespacedSecret({ namespace: ns, name: 'frozen' });
    await waitCondition('frozen', 'Ready', 'True Available', 60_000);
    assert.equal((await secretData('frozen')).value, inCoder('frozen')!.value);
    assert.deepEqual(
      env.coder.state.aiGatewayKeys.filter((k) => k.key.name.startsWith('frozen')).map((k) => k.key.name),
      ['frozen'],
      'the key minted once is the one written',
    );
  });

  it('writes nothing to Kubernetes and only reads Coder at the resync in 60 s of quiet', async () => {
    inCoder('standalone-r1')!.key.last_used_at = null;
    await keys.delete(ns, 'taken');
    await sleep(resyncSeconds * 1000 + 2000);
    const since = new Date();
    const from = env.coder.requests.length;
    await sleep(60_000);
    const writes = (await env.cp.auditEvents({ username: operatorUser, since, verbs: writeVerbs }))
      // The control plane's own controller is checked by its suite; these are this kind's writes.
      .filter((e) => e.objectRef?.namespace === ns && e.objectRef.resource !== 'codercontrolplanes');
    const calls = env.coder.requests.slice(from);
    console.log(
      `quiet 60 s: ${writes.length} Kubernetes writes, ${calls.length} Coder calls (${calls.filter((c) => c.method !== 'GET').length} not GET)`,
    );
    assert.deepEqual(
      writes.map((e) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name}`),
      [],
    );
    assert.deepEqual(
      calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path}`),
      [],
    );
  });

  it('revokes the key on deletion (its own Secret goes with it), or keeps it with deletionPolicy Orphan', async () => {
    const id = inCoder('standalone-r1')!.key.id;
    await keys.delete(ns, 'standalone');
    await eventually('the object gone', async () => !(await keys.list(ns)).items.some((k) => k.metadata.name === 'standalone'));
    assert.ok(!env.coder.state.aiGatewayKeys.some((k) => k.key.id === id), 'the key is revoked in Coder');
    await eventually(
      'the owned Secret garbage-collected',
      async () => (await core.listNamespacedSecret({ namespace: ns })).items.every((s: V1Secret) => s.metadata?.name !== 'gateway-key'),
      { timeoutMs: 60_000 },
    );

    await keys.mergePatch(ns, 'consent', { spec: { deletionPolicy: 'Orphan' } });
    await eventually('the policy seen', async () => {
      const obj = await keys.get(ns, 'consent');
      return obj.status?.observedGeneration === obj.metadata.generation;
    });
    await keys.delete(ns, 'consent');
    await eventually('the object gone', async () => !(await keys.list(ns)).items.some((k) => k.metadata.name === 'consent'));
    assert.ok(inCoder('consent'), 'an orphaned key stays in Coder');
  });

  it('never writes a key or the operator token to its log, status or Events', async () => {
    const log = readFileSync(env.operator.logFile, 'utf8');
    const statuses = JSON.stringify((await keys.list(ns)).items.map((k) => k.status));
    const events = JSON.stringify((await core.listNamespacedEvent({ namespace: ns })).items);
    for (const secret of [...secretValues, ...env.coder.state.aiGatewayKeys.map((k) => k.value)]) {
      assert.ok(!log.includes(secret), 'a secret value in the operator log');
      assert.ok(!statuses.includes(secret), 'a secret value in a status');
      assert.ok(!events.includes(secret), 'a secret value in an Event');
    }
  });
});
