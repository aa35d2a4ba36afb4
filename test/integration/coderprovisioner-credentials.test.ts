// The credential Secret rule (docs/how-to/credential-secrets.md) for CoderProvisioner, end to end: a Secret the operator did not create
// (an existing key Secret, an extraEnv secretKeyRef) is used only when labelled coder.com/credential=true
// and listing the provisioner in coder.com/credential-destinations. Until then it is byte-for-byte
// unchanged, no pod template references it, and marking it recovers without restarting the operator.
import { AppsV1Api, CoreV1Api, EventsV1Api, type V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderProvisionerClient, type CoderProvisionerClient } from '../../generated/clients/index.ts';
import { secretsReferencedBy } from '../../src/controllers/shared/workload/pod-spec.ts';
import { controlPlaneWithOperatorAccess } from '../harness/control-plane-with-access.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { eventually } from '../harness/wait.ts';
import { aProvisioner } from '../fixtures/coderprovisioner.ts';

const ns = 'creds';
const conditionJsonpath = (type: string) =>
  `jsonpath={range .status.conditions[?(@.type=="${type}")]}{.status} {.reason}: {.message}{"\\n"}{end}`;
const envFrom = (secret: string, key = 'token') => ({
  extraEnv: [{ name: 'TF_VAR_token', valueFrom: { secretKeyRef: { name: secret, key } } }],
});

describe('CoderProvisioner credential Secret rule', () => {
  let env: OperatorEnvironment;
  let client: CoderProvisionerClient;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  const created = new Map<string, V1Secret>();

  before(async () => {
    env = await operatorEnvironment();
    client = coderProvisionerClient(env.cp.adminConfig());
    core = env.cp.adminConfig().makeApiClient(CoreV1Api);
    apps = env.cp.adminConfig().makeApiClient(AppsV1Api);
    env.coder.state.entitlements.features.external_provisioner_daemons = { entitlement: 'entitled', enabled: true };
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    await controlPlaneWithOperatorAccess(env, ns);
    const secrets: V1Secret[] = [
      { metadata: { name: 'mine' }, stringData: { key: 'user-value-DO-NOT-LEAK' } },
      {
        metadata: {
          name: 'cloud',
          labels: { 'coder.com/credential': 'true' },
          annotations: { 'coder.com/credential-destinations': 'coderprovisioner/other' },
        },
        stringData: { token: 'cloud-token-DO-NOT-LEAK' },
      },
      {
        metadata: {
          name: 'shared',
          labels: { 'coder.com/credential': 'true' },
          annotations: { 'coder.com/credential-destinations': 'coderprovisioner/*' },
        },
        stringData: { token: 'shared-token-DO-NOT-LEAK' },
      },
      {
        metadata: {
          name: 'nokey',
          labels: { 'coder.com/credential': 'true' },
          annotations: { 'coder.com/credential-destinations': 'coderprovisioner/e' },
        },
        stringData: { other: 'x' },
      },
    ];
    for (const body of secrets) created.set(body.metadata!.name!, await core.createNamespacedSecret({ namespace: ns, body }));
    await client.create(
      aProvisioner('a')
        .inNamespace(ns)
        .withSpec({ key: { secretName: 'mine' } })
        .manifest(),
    );
    await client.create(aProvisioner('b').inNamespace(ns).withSpec(envFrom('cloud')).manifest());
    await client.create(aProvisioner('c').inNamespace(ns).withSpec(envFrom('shared')).manifest());
    await client.create(aProvisioner('d').inNamespace(ns).withSpec(envFrom('later')).manifest());
    await client.create(aProvisioner('e').inNamespace(ns).withSpec(envFrom('nokey')).manifest());
  });
  after(() => env?.stop());

  const conditionLine = async (name: string, type: string) =>
    (await kubectlOk(env.admin, ['-n', ns, 'get', 'coderprovisioner', name, '-o', conditionJsonpath(type)])).trim();
  const waitForCondition = (name: string, type: string, prefix: string) =>
    eventually(`${name} ${type} ${prefix}`, async () => (await conditionLine(name, type)).startsWith(prefix), { timeoutMs: 60_000 });
  /** Byte-for-byte: same resourceVersion (nothing wrote to it), data, labels and annotations. */
  const assertUnchanged = async (name: string) => {
    const before = created.get(name)!;
    const now = await core.readNamespacedSecret({ namespace: ns, name });
    assert.equal(now.metadata!.resourceVersion, before.metadata!.resourceVersion, `Secret ${name} was written to`);
    assert.deepEqual(now.data, before.data);
    assert.deepEqual(now.metadata!.labels, before.metadata!.labels);
    assert.deepEqual(now.metadata!.annotations, before.metadata!.annotations);
    assert.equal(now.metadata!.ownerReferences, undefined);
  };
  const podTemplatesReferencing = async (secret: string) => {
    const deployments = (await apps.listNamespacedDeployment({ namespace: ns })).items;
    const replicaSets = (await apps.listNamespacedReplicaSet({ namespace: ns })).items;
    return [...deployments, ...replicaSets].filter((o) => secretsReferencedBy(o as never).has(secret)).map((o) => o.metadata!.name);
  };
  const secretText = (secret: V1Secret, key: string) => Buffer.from(secret.data![key]!, 'base64').toString();
  const accepted = (name: string) => waitForCondition(name, 'CredentialSecretReady', 'True CredentialAccepted');
  const deploymentReady = (name: string) =>
    eventually(`${name} to run its Deployment`, async () => (await client.get(ns, name)).status?.phase === 'Ready', { timeoutMs: 90_000 });

  it('refuses an existing unmarked key Secret: nothing read or written, no key made, and marking it recovers', async () => {
    await waitForCondition(
      'a',
      'CredentialSecretReady',
      'False NotMarkedAsCredential: Secret "creds/mine" (key "key") lacks the label coder.com/credential=true',
    );
    await assertUnchanged('mine');
    assert.deepEqual(await podTemplatesReferencing('mine'), []);
    assert.match(
      await conditionLine('a', 'Ready'),
      /^False CredentialSecretNotReady: CredentialSecretReady is False \(NotMarkedAsCredential\)/,
    );
    assert.match(await conditionLine('a', 'Stalled'), /^True CredentialSecretNotReady: /);
    assert.ok(!env.coder.state.provisionerKeys.some((k) => k.key.name === 'a'), 'no key in Coder that could not be stored');
    const events = await env.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
    assert.ok(events.items.some((e) => e.reason === 'NotMarkedAsCredential' && e.regarding?.name === 'a'));

    await kubectlOk(env.admin, ['-n', ns, 'label', 'secret', 'mine', 'coder.com/credential=true']);
    await kubectlOk(env.admin, ['-n', ns, 'annotate', 'secret', 'mine', 'coder.com/credential-destinations=coderprovisioner/a']);
    // Marked, but the key holds a person's value: a new key would replace it, so none is made.
    await waitForCondition(
      'a',
      'CredentialSecretReady',
      'False ValueNotOwned: Secret "creds/mine" (key "key") holds a value that coderprovisioner/a did not write',
    );
    assert.equal(secretText(await core.readNamespacedSecret({ namespace: ns, name: 'mine' }), 'key'), 'user-value-DO-NOT-LEAK');
    assert.ok(!env.coder.state.provisionerKeys.some((k) => k.key.name === 'a'), 'no key in Coder that could not be stored');

    await kubectlOk(env.admin, ['-n', ns, 'patch', 'secret', 'mine', '--type=json', '-p', '[{"op":"remove","path":"/data/key"}]']);
    await accepted('a');
    await kubectlOk(env.admin, ['-n', ns, 'wait', '--for=condition=Ready', 'coderprovisioner/a', '--timeout=90s']);
    assert.equal(await conditionLine('a', 'Stalled'), '');
    const key = env.coder.state.provisionerKeys.find((k) => k.key.name === 'a')!;
    const stored = await core.readNamespacedSecret({ namespace: ns, name: 'mine' });
    assert.equal(secretText(stored, 'key'), key.material);
    assert.equal(stored.metadata!.annotations!['coder.com/credential-written-by'], 'key=coderprovisioner/a');
    assert.equal(
      stored.metadata!.ownerReferences,
      undefined,
      "the user's Secret is not taken over: it is not deleted with the provisioner",
    );
  });

  it("never writes its key over another provisioner's in a Secret marked for both, and makes no key in Coder", async () => {
    await kubectlOk(env.admin, [
      '-n',
      ns,
      'annotate',
      '--overwrite',
      'secret',
      'mine',
      'coder.com/credential-destinations=coderprovisioner/a,coderprovisioner/f',
    ]);
    const before = await core.readNamespacedSecret({ namespace: ns, name: 'mine' });
    await client.create(
      aProvisioner('f')
        .inNamespace(ns)
        .withSpec({ key: { secretName: 'mine' } })
        .manifest(),
    );
    await waitForCondition(
      'f',
      'CredentialSecretReady',
      'False ValueNotOwned: Secret "creds/mine" (key "key") holds a value that coderprovisioner/f did not write',
    );
    const after = await core.readNamespacedSecret({ namespace: ns, name: 'mine' });
    assert.equal(after.metadata!.resourceVersion, before.metadata!.resourceVersion, 'Secret mine was written to');
    assert.ok(!env.coder.state.provisionerKeys.some((k) => k.key.name === 'f'), 'no key in Coder for f');
    assert.ok(!(await podTemplatesReferencing('mine')).some((name) => name?.startsWith('provisioner-f')), 'no pods of f');
    assert.equal((await client.get(ns, 'a')).status?.phase, 'Ready', 'a keeps running with its own key');
    await client.delete(ns, 'f');
  });

  it('refuses a marked Secret that lists another provisioner, until it lists this one', async () => {
    await waitForCondition(
      'b',
      'CredentialSecretReady',
      'False DestinationNotListed: spec.extraEnv TF_VAR_token: Secret "creds/cloud" (key "token")',
    );
    await assertUnchanged('cloud');
    assert.deepEqual(await podTemplatesReferencing('cloud'), []);
    await kubectlOk(env.admin, [
      '-n',
      ns,
      'annotate',
      '--overwrite',
      'secret',
      'cloud',
      'coder.com/credential-destinations=coderprovisioner/other,coderprovisioner/b',
    ]);
    await accepted('b');
    await deploymentReady('b');
    assert.ok((await podTemplatesReferencing('cloud')).includes('provisioner-b'));
  });

  it('accepts <kind>/* for every provisioner', async () => {
    await accepted('c');
    await deploymentReady('c');
    await assertUnchanged('shared');
  });

  it('reports SecretNotFound for a missing Secret, and recovers once it is created marked', async () => {
    await waitForCondition(
      'd',
      'CredentialSecretReady',
      'False SecretNotFound: spec.extraEnv TF_VAR_token: Secret "creds/later" (key "token") does not exist',
    );
    assert.deepEqual(await podTemplatesReferencing('later'), []);
    await core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: {
          name: 'later',
          labels: { 'coder.com/credential': 'true' },
          annotations: { 'coder.com/credential-destinations': 'coderprovisioner/d' },
        },
        stringData: { token: 't' },
      },
    });
    await accepted('d');
    await deploymentReady('d');
  });

  it('reports KeyNotFound for a marked Secret without the key, and recovers once the key is added', async () => {
    await waitForCondition(
      'e',
      'CredentialSecretReady',
      'False KeyNotFound: spec.extraEnv TF_VAR_token: Secret "creds/nokey" has no key "token"',
    );
    await assertUnchanged('nokey');
    assert.deepEqual(await podTemplatesReferencing('nokey'), []);
    await kubectlOk(env.admin, ['-n', ns, 'patch', 'secret', 'nokey', '--type=merge', '-p', '{"stringData":{"token":"t"}}']);
    await accepted('e');
    await deploymentReady('e');
  });

  it('takes the Secret out of every pod template when its mark is removed', async () => {
    await kubectlOk(env.admin, ['-n', ns, 'label', 'secret', 'cloud', 'coder.com/credential-']);
    await waitForCondition('b', 'CredentialSecretReady', 'False NotMarkedAsCredential: spec.extraEnv TF_VAR_token: Secret "creds/cloud"');
    await eventually(
      'no Deployment or ReplicaSet to reference Secret cloud',
      async () => (await podTemplatesReferencing('cloud')).length === 0,
      {
        timeoutMs: 60_000,
      },
    );
  });

  it('runs spec.image with a token that may create pods in the namespace, where the marks stop (as credential-secrets.md says)', async () => {
    const deployment = (await apps.listNamespacedDeployment({ namespace: ns })).items.find((d) =>
      d.metadata?.ownerReferences?.some((r) => r.kind === 'CoderProvisioner'),
    );
    assert.ok(deployment, 'a provisioner Deployment');
    const pod = deployment.spec!.template.spec!;
    assert.notEqual(pod.automountServiceAccountToken, false, 'the ServiceAccount token is mounted');
    const user = `system:serviceaccount:${ns}:${pod.serviceAccountName}`;
    const can = await kubectlOk(env.admin, ['auth', 'can-i', 'create', 'pods', '-n', ns, '--as', user]).catch((err: Error) => err.message);
    assert.match(can, /^yes/, 'a pod that may create pods may mount any Secret of the namespace into one');
  });

  it('never writes a Secret value to its status or Events', async () => {
    const statuses = JSON.stringify((await client.list(ns)).items.map((o) => o.status));
    const events = JSON.stringify((await env.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items);
    for (const text of [statuses, events]) assert.ok(!/DO-NOT-LEAK/.test(text));
  });
});
