// Who owns a provisioner key: a CoderProvisioner rotates or deletes only the key whose id it recorded. A
// Coder admin's key of the same name, made directly in Coder, is neither deleted nor taken over by a user
// who may only create CoderProvisioners in their namespace; it is reported as KeyNameTaken. Against the
// Coder API double (provisioner keys are a licensed Coder feature).
import { grantOnly } from '../harness/namespaced-user.ts';
import { AppsV1Api, EventsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { coderProvisionerClient, type CoderProvisionerClient } from '../../generated/clients/index.ts';
import { CoderClient } from '../../src/coder/client.ts';
import { apiStatus } from '../harness/api-status.ts';
import { controlPlaneWithOperatorAccess } from '../harness/control-plane-with-access.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { eventually } from '../harness/wait.ts';
import { aProvisioner } from '../fixtures/coderprovisioner.ts';

const ns = 'team';
const conditionJsonpath = (type: string) =>
  `jsonpath={range .status.conditions[?(@.type=="${type}")]}{.status} {.reason}: {.message}{"\\n"}{end}`;
const takenMessage = 'Provisioner key "prod-gpu" already exists in organization "default" and this provisioner did not create it';

describe('CoderProvisioner key ownership', () => {
  let env: OperatorEnvironment;
  let client: CoderProvisionerClient;
  let apps: AppsV1Api;
  let coderAdmin: CoderClient;
  let adminsKey: { id: string; material: string };

  before(async () => {
    env = await operatorEnvironment();
    client = coderProvisionerClient(env.cp.adminConfig());
    apps = env.cp.adminConfig().makeApiClient(AppsV1Api);
    env.coder.state.entitlements.features.external_provisioner_daemons = { entitlement: 'entitled', enabled: true };
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    // mallory may create CoderProvisioners in her namespace, and nothing else.
    await grantOnly(env.admin, ns, 'mallory', 'coderprovisioners', ['create']);
    await controlPlaneWithOperatorAccess(env, ns);

    // A Coder owner other than the operator makes the key for the GPU builders with the Coder API, as `coder provisioner keys create` does.
    const now = new Date().toISOString();
    const adminId = randomUUID();
    env.coder.state.users.push({
      id: adminId,
      username: 'admin',
      email: 'admin@example.com',
      created_at: now,
      updated_at: now,
      last_seen_at: now,
      status: 'active',
      login_type: 'password',
      organization_ids: [],
      roles: [{ name: 'owner', display_name: 'Owner' }],
    });
    env.coder.addToken('AdminToken-0123456789abcdefghijkl', adminId);
    coderAdmin = new CoderClient({ baseURL: env.coder.url, token: 'AdminToken-0123456789abcdefghijkl', retries: 0 });
    await coderAdmin.request('POST', '/api/v2/organizations/{organization}/provisionerkeys', {
      params: { organization: 'default' },
      body: { name: 'prod-gpu', tags: { gpu: 'a100' } },
    });
    const stored = env.coder.state.provisionerKeys.find((k) => k.key.name === 'prod-gpu')!;
    adminsKey = { id: stored.key.id, material: stored.material };
  });
  after(() => env?.stop());

  const conditionLine = async (name: string, type: string) =>
    (await kubectlOk(env.admin, ['-n', ns, 'get', 'coderprovisioner', name, '-o', conditionJsonpath(type)])).trim();
  const waitForCondition = (name: string, type: string, prefix: string) =>
    eventually(`${name} ${type} ${prefix}`, async () => (await conditionLine(name, type)).startsWith(prefix), { timeoutMs: 60_000 });
  const keyNamed = (name: string) => env.coder.state.provisionerKeys.find((k) => k.key.name === name);
  const assertAdminsKeyIntact = () => {
    const key = keyNamed('prod-gpu');
    assert.ok(key, "the admin's key prod-gpu exists in Coder");
    assert.equal(key.key.id, adminsKey.id, "the admin's key keeps its id");
    assert.equal(key.material, adminsKey.material, "the admin's key keeps its material");
    assert.deepEqual(key.key.tags, { gpu: 'a100' });
  };
  const keyDeletes = (name: string) =>
    env.coder.requests.filter((r) => r.method === 'DELETE' && r.path.toLowerCase().endsWith(`/provisionerkeys/${name}`));
  const deleteAndWait = async (name: string) => {
    await kubectlOk(env.admin, ['-n', ns, 'delete', 'coderprovisioner', name, '--wait=false']);
    await eventually(`${name} to be gone`, async () =>
      client.get(ns, name).then(
        () => false,
        (err) => apiStatus(err).code === 404,
      ),
    );
  };
  const eventsOf = async (name: string) =>
    (await env.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items.filter(
      (e) => e.regarding?.name === name,
    );

  it("leaves an admin's key of that name alone: KeyNameTaken, Stalled and an Event, and deleting the object keeps the key", async () => {
    const mallory = await env.cp.userKubeconfig('mallory');
    const manifest = JSON.stringify(
      aProvisioner('gpu')
        .inNamespace(ns)
        .withSpec({ key: { name: 'prod-gpu' } })
        .manifest(),
    );
    const created = await kubectl(mallory, ['create', '-f', '-'], manifest);
    assert.equal(created.code, 0, created.stderr);

    await eventually('gpu ProvisionerKeyReady reported', async () => (await conditionLine('gpu', 'ProvisionerKeyReady')) !== '', {
      timeoutMs: 60_000,
    });
    assertAdminsKeyIntact();
    assert.ok((await conditionLine('gpu', 'ProvisionerKeyReady')).startsWith(`False KeyNameTaken: ${takenMessage}`));
    assert.match(await conditionLine('gpu', 'Ready'), /^False KeyNameTaken: ProvisionerKeyReady is False \(KeyNameTaken\): /);
    assert.match(await conditionLine('gpu', 'Stalled'), /^True KeyNameTaken: /);
    assertAdminsKeyIntact();
    assert.deepEqual(keyDeletes('prod-gpu'), [], 'no DELETE of prod-gpu reached Coder');
    const status = (await client.get(ns, 'gpu')).status!;
    assert.equal(status.provisionerKeyID, undefined, "the admin's key id is not recorded as this object's");
    assert.equal(
      (await apps.listNamespacedDeployment({ namespace: ns })).items.some((d) => d.metadata!.name === 'provisioner-gpu'),
      false,
      'no daemons without a key',
    );
    const warning = (await eventsOf('gpu')).find((e) => e.reason === 'KeyNameTaken');
    assert.ok(warning, 'a KeyNameTaken Event');
    assert.equal(warning.type, 'Warning');
    assert.match(warning.note ?? '', /Choose another spec\.key\.name/);

    await deleteAndWait('gpu');
    assertAdminsKeyIntact();
    assert.deepEqual(keyDeletes('prod-gpu'), [], 'no DELETE of prod-gpu reached Coder on deletion');
  });

  it('keeps its own key when renamed onto a taken name, and deletes only that key when deleted', async () => {
    await kubectlOk(env.admin, ['apply', '-f', '-'], JSON.stringify(aProvisioner('builders').inNamespace(ns).manifest()));
    await waitForCondition('builders', 'ProvisionerKeyReady', 'True ProvisionerKeyReady');
    const own = keyNamed('builders');
    assert.ok(own);
    assert.equal((await client.get(ns, 'builders')).status!.provisionerKeyID, own.key.id);

    await client.mergePatch(ns, 'builders', { spec: { key: { name: 'prod-gpu' } } });
    await waitForCondition('builders', 'ProvisionerKeyReady', `False KeyNameTaken: ${takenMessage}`);
    assertAdminsKeyIntact();
    assert.equal(keyNamed('builders')?.key.id, own.key.id, 'its own key still works for its daemons');
    const status = (await client.get(ns, 'builders')).status!;
    assert.equal(status.provisionerKeyID, own.key.id);
    assert.equal(status.provisionerKeyName, 'builders');

    await deleteAndWait('builders');
    assert.equal(keyNamed('builders'), undefined, 'its own key is deleted from Coder');
    assertAdminsKeyIntact();
    assert.deepEqual(keyDeletes('prod-gpu'), []);
    assert.ok((await eventsOf('builders')).some((e) => e.reason === 'ProvisionerKeyDeleted' && e.note?.includes('"builders"')));
  });

  it("treats a key of its name as another's once its status lost the recorded id, and leaves it in Coder on deletion", async () => {
    await kubectlOk(env.admin, ['apply', '-f', '-'], JSON.stringify(aProvisioner('restored').inNamespace(ns).manifest()));
    await waitForCondition('restored', 'ProvisionerKeyReady', 'True ProvisionerKeyReady');
    const own = keyNamed('restored')!;
    // As a status written without the id would read (a restore that drops status, say).
    await kubectlOk(env.admin, [
      '-n',
      ns,
      'patch',
      'coderprovisioner',
      'restored',
      '--subresource=status',
      '--type=json',
      '-p=[{"op":"remove","path":"/status/provisionerKeyID"}]',
    ]);
    // The operator does not reconcile for a status change; a label (the restore's own mark) makes it look.
    await kubectlOk(env.admin, ['-n', ns, 'label', 'coderprovisioner', 'restored', 'restored=true']);
    await waitForCondition(
      'restored',
      'ProvisionerKeyReady',
      'False KeyNameTaken: Provisioner key "restored" already exists in organization "default" and this provisioner did not create it (this provisioner has recorded no status.provisionerKeyID)',
    );
    assert.equal(keyNamed('restored')?.key.id, own.key.id, 'the key is not rotated');
    // The listing of docs/how-to/upgrade.md "Provisioners", before its awk.
    const unrecorded = await kubectlOk(env.admin, [
      'get',
      'coderprovisioners',
      '-A',
      '-o',
      'jsonpath={range .items[?(@.status.provisionerKeyName)]}{.metadata.namespace}/{.metadata.name}: {.status.provisionerKeyName} {.status.provisionerKeyID}{"\\n"}{end}',
    ]);
    assert.match(unrecorded, new RegExp(`^${ns}/restored: restored $`, 'm'));

    await deleteAndWait('restored');
    assert.equal(keyNamed('restored')?.key.id, own.key.id, 'the key stays in Coder');
    assert.deepEqual(keyDeletes('restored'), []);
    const warning = (await eventsOf('restored')).find((e) => e.reason === 'ProvisionerKeyNotDeleted');
    assert.match(warning?.note ?? '', /recorded no status\.provisionerKeyID.*coder provisioner keys delete restored --org default/);
  });
});
