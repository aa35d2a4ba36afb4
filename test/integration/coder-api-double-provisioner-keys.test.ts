// The provisioner-key routes of the Coder API double, driven through the operator's Coder client: what the
// provisioner controller relies on, as coder/coder enterprise/coderd/provisionerkeys.go answers it (names
// unique per organization ignoring case, a second create 409, delete by name), and the operator's rule on
// top: only the key whose id it recorded is rotated or deleted.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CoderClient } from '../../src/coder/client.ts';
import { createKey, deleteRecordedKey, KeyNameTakenError } from '../../src/controllers/coderprovisioner/provisioner-key.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';

describe('provisioner keys in the Coder API double', () => {
  const token = 'provisioner-keys-owner-token';
  let coder: CoderApiDouble;
  let client: CoderClient;

  before(async () => {
    coder = await startCoderApiDouble({ tokens: [token] });
    client = new CoderClient({ baseURL: coder.url, token, retries: 0 });
  });
  beforeEach(() => {
    coder.reset();
    coder.state.entitlements.features.external_provisioner_daemons = { entitlement: 'entitled', enabled: true };
  });
  after(() => coder?.stop());

  const post = (name: string) =>
    client.request('POST', '/api/v2/organizations/{organization}/provisionerkeys', {
      params: { organization: 'default' },
      body: { name, tags: {} },
    });
  const list = () => client.request('GET', '/api/v2/organizations/{organization}/provisionerkeys', { params: { organization: 'default' } });
  const gpu = { organizationName: 'default', keyName: 'prod-gpu' };

  it('stores a name in lower case, refuses it again in any case with 409, and deletes it by name in any case', async () => {
    await post('Prod-GPU');
    assert.deepEqual(
      (await list()).map((k) => k.name),
      ['prod-gpu'],
    );
    await assert.rejects(post('prod-gpu'), /409.*Provisioner key with name 'prod-gpu' already exists in organization/);
    await client.request('DELETE', '/api/v2/organizations/{organization}/provisionerkeys/{provisionerKeyName}', {
      params: { organization: 'default', provisionerKeyName: 'PROD-gpu' },
    });
    assert.deepEqual(await list(), []);
  });

  it("leaves another's key of the name alone: createKey refuses it as taken, with or without a recorded id", async () => {
    await post('prod-gpu');
    const [admins] = await list();
    for (const recorded of [undefined, '00000000-0000-4000-8000-000000000000']) {
      await assert.rejects(createKey(client, gpu, {}, recorded), (err: unknown) => {
        assert.ok(err instanceof KeyNameTakenError);
        assert.match(
          err.message,
          /^Provisioner key "prod-gpu" already exists in organization "default" and this provisioner did not create it/,
        );
        return true;
      });
    }
    assert.equal(await deleteRecordedKey(client, 'default', '00000000-0000-4000-8000-000000000000'), undefined);
    assert.deepEqual(await list(), [admins]);
  });

  it('rotates and deletes the key whose id was recorded', async () => {
    const first = await createKey(client, gpu, { pool: 'a' }, undefined);
    assert.equal(first.rotated, false);
    const rotated = await createKey(client, gpu, { pool: 'b' }, first.keyID);
    assert.equal(rotated.rotated, true);
    assert.notEqual(rotated.keyID, first.keyID);
    assert.deepEqual(
      (await list()).map((k) => [k.id, k.tags]),
      [[rotated.keyID, { pool: 'b' }]],
    );
    assert.equal(await deleteRecordedKey(client, 'default', first.keyID), undefined, 'the rotated-away id names no key any more');
    assert.equal(await deleteRecordedKey(client, 'default', rotated.keyID), 'prod-gpu');
    assert.deepEqual(await list(), []);
  });

  it('sends no X-Coder-Bypass-Ratelimit, which Coder never reads on /api/v2 (its rate limiter runs before authentication)', async () => {
    const created = await createKey(client, gpu, {}, undefined);
    await deleteRecordedKey(client, 'default', created.keyID);
    const keyCalls = coder.requests.filter((r) => r.path.includes('/provisionerkeys'));
    assert.deepEqual(
      keyCalls.map((r) => r.method),
      ['GET', 'POST', 'GET', 'GET', 'DELETE'],
    );
    assert.deepEqual(
      keyCalls.filter((r) => 'x-coder-bypass-ratelimit' in r.headers),
      [],
    );
  });

  it("passes on Coder's refusal of a reserved or too long name, in Coder's words", async () => {
    await assert.rejects(
      createKey(client, { organizationName: 'default', keyName: 'PSK' }, {}, undefined),
      /400.*Name cannot be reserved name 'PSK'/,
    );
    await assert.rejects(
      createKey(client, { organizationName: 'default', keyName: 'k'.repeat(65) }, {}, undefined),
      /400.*Name must be at most 64 characters/,
    );
  });

  it("reports Coder's 409 for a name made between the look and the create as taken", async () => {
    coder.failNext(1, 409, {
      method: 'POST',
      pathPrefix: '/api/v2/organizations/',
      message: "Provisioner key with name 'prod-gpu' already exists in organization",
    });
    await assert.rejects(createKey(client, gpu, {}, undefined), KeyNameTakenError);
    assert.deepEqual(await list(), []);
  });
});
