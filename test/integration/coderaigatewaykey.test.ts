// CoderAIGatewayKey end to end: the operator as its own process under its generated RBAC, a control plane
// with operator access (real PostgreSQL), and the Coder API double serving AI Gateway keys from v2.36.
// Resync period 6 s.
import { RbacAuthorizationV1Api, type CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  coderAIGatewayKeyClient,
  coderControlPlaneClient,
  type CoderAIGatewayKeyClient,
  type CoderControlPlaneClient,
} from '../../generated/clients/index.ts';
import { apiStatus } from '../harness/api-status.ts';
import {
  assertNoSecretsShown,
  assertQuiet,
  coderFailures,
  conditionsOf,
  deleteWithOrphanPolicy,
  deletionHeldByCoder,
  reportsAIGatewayGates,
  reportsFailureThenRecovers,
  reportsInvalidSpec,
  sleep,
  startCoderObjectSuite,
  withSpecUnvalidated,
  type CoderObjectSuite,
} from '../harness/coder-object-suite.ts';
import { controlPlaneWithOperatorAccess } from '../harness/control-plane-with-access.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import type { OperatorEnvironment } from '../harness/operator-environment.ts';
import { eventually } from '../harness/wait.ts';
import { aGatewayKey } from '../fixtures/coderaigatewaykey.ts';

const ns = 'gateway';
const resyncSeconds = 6;
const keysPath = '/api/v2/ai-gateway/keys';

describe('CoderAIGatewayKey controller', () => {
  let suite: CoderObjectSuite;
  let env: OperatorEnvironment;
  let core: CoreV1Api;
  let keys: CoderAIGatewayKeyClient;
  let controlPlanes: CoderControlPlaneClient;
  const secretValues: string[] = [];

  before(async () => {
    suite = await startCoderObjectSuite(ns, resyncSeconds, (e) => {
      e.coder.state.buildInfo.version = 'v2.36.0';
      e.coder.state.entitlements.features.aibridge = { entitlement: 'entitled', enabled: true };
    });
    ({ env, core } = suite);
    keys = coderAIGatewayKeyClient(env.cp.adminConfig());
    controlPlanes = coderControlPlaneClient(env.cp.adminConfig());
  });
  after(() => {
    for (const k of env?.coder.state.aiGatewayKeys ?? []) secretValues.push(k.value);
    return env?.stop();
  });

  const { condition, conditions, waitCondition } = conditionsOf(() => keys, ns);
  const inCoder = (name: string) => env.coder.state.aiGatewayKeys.find((k) => k.key.name === name);
  const secretData = async (name: string, key = 'key') => {
    const secret = await core.readNamespacedSecret({ namespace: ns, name });
    const value = secret.data?.[key];
    return { secret, value: value === undefined ? undefined : Buffer.from(value, 'base64').toString() };
  };

  it('mints the key, writes it to a Secret it creates and owns, and reports Ready Available', async () => {
    await keys.create(
      aGatewayKey('standalone')
        .inNamespace(ns)
        .withSpec({ destinations: [{ name: 'gateway-key' }], rotation: { gracePeriod: '0s' } })
        .manifest(),
    );
    await waitCondition('standalone', 'Ready', 'True Available');
    await kubectlOk(env.admin, ['-n', ns, 'wait', '--for=condition=Ready', 'coderaigatewaykey/standalone', '--timeout=30s']);
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
    assert.deepEqual(
      await conditions('standalone', ['ControlPlaneReady', 'CredentialSecretReady', 'Supported', 'Entitled', 'Synced', 'Connected']),
      {
        ControlPlaneReady: 'True ControlPlaneAvailable',
        CredentialSecretReady: 'True CredentialAccepted',
        Supported: 'True Supported',
        Entitled: 'True Entitled',
        Synced: 'True Applied',
        Connected: 'False NeverUsed',
      },
    );
    assert.ok(!JSON.stringify(obj.status).includes(key.value));
  });

  it('reports a heartbeat as Connected', async () => {
    inCoder('standalone')!.key.last_heartbeat_at = new Date().toISOString();
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

  it('rotates the key once on request (spec.rotation.requestID), and not again while the request is unchanged', async () => {
    const before = await keys.get(ns, 'standalone');
    await keys.mergePatch(ns, 'standalone', { spec: { rotation: { requestID: 'first' } } });
    const rotated = await eventually('the requested rotation in the status', async () => {
      const o = await keys.get(ns, 'standalone');
      return o.status?.rotationRequestID === 'first' ? o : undefined;
    });
    assert.equal(rotated.status!.rotation, before.status!.rotation! + 1);
    assert.notEqual(rotated.status!.coderID, before.status!.coderID);
    assert.equal((await secretData('gateway-key')).value, inCoder(rotated.status!.coderKeyName!)!.value);
    await eventually('the key before the request deleted in Coder', async () => !inCoder(before.status!.coderKeyName!), {
      timeoutMs: (resyncSeconds + 10) * 1000,
    });

    const from = env.coder.requests.length;
    await keys.mergePatch(ns, 'standalone', { spec: { rotation: { rotateAfter: '8760h' } } });
    await eventually('the next rotation time', async () => (await keys.get(ns, 'standalone')).status?.nextRotationTime);
    await sleep(resyncSeconds * 1000 + 2000);
    assert.deepEqual(
      env.coder.requests.slice(from).filter((r) => r.method !== 'GET'),
      [],
      'no rotation while spec.rotation.requestID is unchanged',
    );
    assert.equal((await keys.get(ns, 'standalone')).status!.coderID, rotated.status!.coderID);
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
    assert.equal(secret.metadata!.annotations!['coder.com/credential-written-by'], 'gw=coderaigatewaykey/consent');
  });

  it("never writes over another key's value in a destination marked for both, and mints nothing for it", async () => {
    await kubectlOk(env.admin, [
      '-n',
      ns,
      'annotate',
      '--overwrite',
      'secret',
      'shared',
      'coder.com/credential-destinations=coderaigatewaykey/consent,coderaigatewaykey/second',
    ]);
    const before = await secretData('shared', 'gw');
    const from = env.coder.requests.length;
    await keys.create(
      aGatewayKey('second')
        .inNamespace(ns)
        .withSpec({ destinations: [{ name: 'shared', key: 'gw' }] })
        .manifest(),
    );
    await waitCondition('second', 'CredentialSecretReady', 'False ValueNotOwned');
    assert.match(
      (await keys.get(ns, 'second')).status!.conditions!.find((c) => c.type === 'CredentialSecretReady')!.message,
      /^spec\.destinations: Secret "[^"]+\/shared" \(key "gw"\) holds a value that coderaigatewaykey\/second did not write/,
    );
    const after = await secretData('shared', 'gw');
    assert.equal(after.secret.metadata!.resourceVersion, before.secret.metadata!.resourceVersion, 'the destination was written to');
    assert.equal(after.value, inCoder('consent')!.value);
    assert.deepEqual(
      env.coder.requests.slice(from).filter((r) => r.method === 'POST' && r.path === keysPath),
      [],
      'no key minted that could not be stored',
    );
    await keys.delete(ns, 'second');
  });

  it('leaves a key of the same name alone, and reports CoderVersionUnsupported before v2.36', async () => {
    env.coder.state.aiGatewayKeys.push({
      key: { id: crypto.randomUUID(), name: 'taken', key_prefix: 'xxxxxxxxxxx', created_at: new Date().toISOString() },
      value: 'x'.repeat(43),
    });
    await keys.create(
      aGatewayKey('taken')
        .inNamespace(ns)
        .withSpec({ destinations: [{ name: 'taken-key' }] })
        .manifest(),
    );
    await waitCondition('taken', 'Synced', 'False AlreadyExists');
    assert.equal(await condition('taken', 'Ready'), 'False SyncFailed');
    await assert.rejects(
      core.readNamespacedSecret({ namespace: ns, name: 'taken-key' }),
      (err) => apiStatus(err).code === 404,
      'nothing written: reading the Secret answers 404',
    );

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

  for (const row of coderFailures) {
    it(`reports Synced ${row.reason} when Coder answers ${row.status} to the mint, then recovers`, () =>
      reportsFailureThenRecovers(
        suite,
        keys,
        aGatewayKey(`fails-${row.status}`)
          .inNamespace(ns)
          .withSpec({ destinations: [{ name: `fails-${row.status}-key` }] })
          .manifest(),
        keysPath,
        row,
        resyncSeconds,
      ));
  }

  it('reports NotEntitled, GracePeriod and GatewayDisabledOnControlPlane', () =>
    reportsAIGatewayGates(env, keys, ns, 'standalone', resyncSeconds));

  it("refuses a destination another kind's naming scheme claims, from a user who may create keys; the control plane still gets its token Secret", async () => {
    const rbac = env.cp.adminConfig().makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'gateway-key-author' },
        rules: [{ apiGroups: ['coder.com'], resources: ['coderaigatewaykeys'], verbs: ['create', 'get'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'gateway-key-author' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gateway-key-author' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'kay' }],
      },
    });
    const kay = await env.cp.userKubeconfig('kay');
    const claiming = (destinations: { name: string }[]) =>
      JSON.stringify(aGatewayKey('squatter').inNamespace(ns).withSpec({ destinations }).manifest());
    const claimed: [string, string][] = [
      ['later-operator-token', 'CoderControlPlane'],
      ['x-provisioner-key', 'CoderProvisioner'],
    ];
    for (const [name, kind] of claimed) {
      const refused = await kubectl(kay, ['create', '-f', '-'], claiming([{ name }]));
      assert.notEqual(refused.code, 0, `the API server refuses ${name}`);
      assert.match(refused.stderr, new RegExp(`spec\\.destinations\\[0\\]\\.name: Invalid value: .*the Secret name is claimed by ${kind}`));
    }

    // A CRD without the rule (installed without validation, or older) admits it; the operator refuses it.
    const from = env.coder.requests.length;
    await withSpecUnvalidated(
      env,
      'coderaigatewaykeys.coder.com',
      () => keys.list(ns),
      async () => {
        await eventually('the relaxed CRD to admit the key', () =>
          kubectlOk(kay, ['create', '-f', '-'], claiming([{ name: 'later-operator-token' }, { name: 'x-provisioner-key' }])),
        );
        await waitCondition('squatter', 'Ready', 'False InvalidSpec');
        const ready = (await keys.get(ns, 'squatter')).status!.conditions!.find((c) => c.type === 'Ready')!;
        assert.match(
          ready.message,
          /^spec\.destinations\[0\]\.name: the Secret name "later-operator-token" is claimed by CoderControlPlane: /,
        );
        for (const name of ['later-operator-token', 'x-provisioner-key']) {
          await assert.rejects(
            core.readNamespacedSecret({ namespace: ns, name }),
            (err) => apiStatus(err).code === 404,
            `no Secret ${name} created: reading it answers 404`,
          );
        }
        assert.deepEqual(
          env.coder.requests.slice(from).filter((r) => r.method === 'POST' && r.path === keysPath),
          [],
          'no key minted',
        );

        const { controlPlane } = await controlPlaneWithOperatorAccess(env, ns, 'later');
        assert.equal(controlPlane.status!.operatorTokenSecretRef!.name, 'later-operator-token');
        const token = await core.readNamespacedSecret({ namespace: ns, name: 'later-operator-token' });
        assert.ok(token.metadata!.ownerReferences!.some((r) => r.kind === 'CoderControlPlane' && r.uid === controlPlane.metadata.uid));
        await keys.delete(ns, 'squatter');
        await eventually('squatter gone', async () => !(await keys.list(ns)).items.some((o) => o.metadata?.name === 'squatter'));
      },
    );
    await controlPlanes.delete(ns, 'later');
    await eventually(
      'control plane later gone',
      async () => !(await controlPlanes.list(ns)).items.some((o) => o.metadata?.name === 'later'),
      {
        timeoutMs: 60_000,
      },
    );
  });

  it('reports a spec of the wrong type as InvalidSpec, naming the field, and mints nothing', () =>
    reportsInvalidSpec(
      env,
      keys,
      'coderaigatewaykeys.coder.com',
      aGatewayKey('malformed').inNamespace(ns).withRawSpec({ destinations: 'gateway-key' }).manifest(),
      'spec.destinations',
    ));

  it('writes nothing to Kubernetes and only reads Coder at the resync in 60 s of quiet', async () => {
    // A heartbeat ages into NoRecentHeartbeat, a status change of its own.
    for (const k of env.coder.state.aiGatewayKeys) delete k.key.last_heartbeat_at;
    await keys.delete(ns, 'taken');
    await assertQuiet(env, ns, resyncSeconds);
  });

  it('reports Deleting while Coder refuses to revoke the key, then revokes it (its own Secret goes with it)', async () => {
    const id = (await keys.get(ns, 'standalone')).status!.coderID!;
    await deletionHeldByCoder(env, keys, ns, 'standalone', `${keysPath}/${id}`);
    assert.ok(!env.coder.state.aiGatewayKeys.some((k) => k.key.id === id), 'the key is revoked in Coder');
    await eventually(
      'the owned Secret garbage-collected',
      async () => (await core.listNamespacedSecret({ namespace: ns })).items.every((s: V1Secret) => s.metadata?.name !== 'gateway-key'),
      { timeoutMs: 60_000 },
    );
  });

  it('keeps the key in Coder with deletionPolicy Orphan', async () => {
    await deleteWithOrphanPolicy(keys, ns, 'consent');
    assert.ok(inCoder('consent'), 'an orphaned key stays in Coder');
  });

  it('never writes a key or the operator token to its log, status or Events', () =>
    assertNoSecretsShown(suite, keys, ns, [...secretValues, ...env.coder.state.aiGatewayKeys.map((k) => k.value)]));
});
