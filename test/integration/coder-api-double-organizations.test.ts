// The organizations of the Coder API double, driven through the operator's Coder client: one list for every
// route, the default organization named and found as Coder names and finds it (by is_default, "default"
// being a keyword of the path), so the provisioner-key routes see the organizations the template routes see.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CoderClient } from '../../src/coder/client.ts';
import { createKey, deleteRecordedKey } from '../../src/controllers/coderprovisioner/provisioner-key.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { seedOrganization, seedTemplate } from '../harness/coder-api-double/workspace-world.ts';

describe('organizations in the Coder API double', () => {
  const token = 'organizations-owner-token';
  let coder: CoderApiDouble;
  let client: CoderClient;

  before(async () => {
    coder = await startCoderApiDouble({ tokens: [token] });
    client = new CoderClient({ baseURL: coder.url, token, retries: 0 });
  });
  beforeEach(() => coder.reset());
  after(() => coder?.stop());

  const organization = (ref: string) => client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: ref } });

  it("starts with the one organization Coder's migrations make: coder, the default", async () => {
    const found = await organization('default');
    assert.deepEqual([found.name, found.display_name, found.is_default], ['coder', 'Coder', true]);
    assert.equal((await organization('coder')).id, found.id);
    assert.equal((await organization(found.id)).name, 'coder');
    await assert.rejects(organization('Default'), /404/, '"default" is a keyword only as Coder spells it');
  });

  it('keeps provisioner keys of "default" in the organization the template routes know, after seeding others', async () => {
    const seeded = seedTemplate(coder.state.world, coder.state.users, { template: 'docker' });
    const acme = seedOrganization(coder.state.world, 'acme');
    assert.equal(acme.is_default, false);
    coder.state.entitlements.features.external_provisioner_daemons = { entitlement: 'entitled', enabled: true };
    const created = await createKey(client, { organizationName: 'default', keyName: 'eu' }, { region: 'eu' }, undefined);
    assert.equal(created.organizationID, seeded.organization.id);
    const keys = (ref: string) =>
      client.request('GET', '/api/v2/organizations/{organization}/provisionerkeys', { params: { organization: ref } });
    assert.deepEqual(
      (await keys('coder')).map((k) => k.name),
      ['eu'],
    );
    assert.deepEqual(await keys(acme.id), []);
    assert.equal(await deleteRecordedKey(client, 'default', created.keyID), 'eu');
    assert.deepEqual(await keys('default'), []);
  });

  it('answers every provisioner-key call 403 without external_provisioner_daemons, after the organization is found', async () => {
    const keys = (ref: string) =>
      client.request('GET', '/api/v2/organizations/{organization}/provisionerkeys', { params: { organization: ref } });
    await assert.rejects(keys('default'), /403.*External Provisioner Daemons is a Premium feature\. Contact sales!/);
    await assert.rejects(createKey(client, { organizationName: 'default', keyName: 'eu' }, {}, undefined), /403/);
    await assert.rejects(keys('no-such-org'), /404/);
  });
});
