// codertemplates created from spec.versionID against the Coder API double: Coder itself makes a template of a
// version in any state (coder/coder v2.26.1 coderd/templates.go postTemplateByOrganization), so the operator
// takes only an imported version, and an unknown one is the caller's mistake, not a missing template.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { staticBackend } from '../../../../../src/aggregated/backend.ts';
import { ApiStatusError } from '../../../../../src/aggregated/status.ts';
import { CoderTemplateStorage } from '../../../../../src/aggregated/storage/codertemplate/template-storage.ts';
import { createLogger } from '../../../../../src/runtime/logger.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../../../../harness/coder-api-double.ts';
import { seedOrganization, seedTemplateWithVersion } from '../../../../harness/coder-api-double/workspace-world.ts';

const token = 'templateversionid-operatortokenvalue00';
const ns = 'coder';

let coder: CoderApiDouble;
let storage: CoderTemplateStorage;

/** Rejected with a 400 whose message matches. */
const badRequest = (message: RegExp) => (err: unknown) => err instanceof ApiStatusError && err.code === 400 && message.test(err.message);

const template = (versionID: string) => ({
  apiVersion: 'aggregation.coder.com/v1alpha1',
  kind: 'CoderTemplate',
  metadata: { name: 'acme.made' },
  spec: { organization: 'acme', versionID },
});

before(async () => {
  coder = await startCoderApiDouble({ tokens: [token] });
  storage = new CoderTemplateStorage(
    staticBackend({ url: coder.url, token, namespace: ns, timeoutMs: 5_000, logger: createLogger({ level: 'error' }) }),
  );
});
after(async () => coder?.stop());

describe('codertemplates spec.versionID', () => {
  let versionId: string;
  beforeEach(() => {
    coder.reset();
    const acme = seedOrganization(coder.state.world, 'acme');
    const { version } = seedTemplateWithVersion(coder.state.world, acme, { template: 'base' });
    // A version of no template yet, as `coder templates push` leaves one before the template exists.
    version.template_id = '00000000-0000-0000-0000-000000000000';
    coder.state.world.templates.length = 0;
    versionId = version.id;
  });

  it('makes the template of an imported version', async () => {
    const created = await storage.create(ns, template(versionId));
    assert.equal(created.spec.versionID, versionId);
  });

  it('refuses a version whose import did not succeed, which Coder would make a template of', async () => {
    Object.assign(coder.state.world.templateVersions[0]!.job, { status: 'failed', error: 'boom' });
    await assert.rejects(storage.create(ns, template(versionId)), badRequest(/the template version's import is failed, not succeeded/));
    assert.equal(coder.state.world.templates.length, 0, 'no template was made in Coder');
  });

  it('answers an unknown version with a 400 naming spec.versionID, not a NotFound of the template', async () => {
    const missing = '5e9b1c2a-7d4e-4f6a-8b3c-9a1d2e3f4b5c';
    await assert.rejects(
      storage.create(ns, template(missing)),
      badRequest(new RegExp(`spec.versionID "${missing}": no template version has this id`)),
    );
  });
});
