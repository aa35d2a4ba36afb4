// Deprecated templates are listed as a get finds them. Coder's template list leaves them out unless the
// query asks (coder/coder v2.26.1 coderd/templates.go fetchTemplates; the double's list follows it), so
// codertemplates and codertemplateversions list both sides of the deprecated:true filter.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { staticBackend } from '../../../../../src/aggregated/backend.ts';
import type { CoderTemplate } from '../../../../../generated/aggregated/types.ts';
import { CoderTemplateStorage } from '../../../../../src/aggregated/storage/codertemplate/template-storage.ts';
import { CoderTemplateVersionStorage } from '../../../../../src/aggregated/storage/codertemplateversion/template-version-storage.ts';
import { createLogger } from '../../../../../src/runtime/logger.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../../../../harness/coder-api-double.ts';
import { seedOrganization, seedTemplateWithVersion } from '../../../../harness/coder-api-double/workspace-world.ts';

const token = 'templatedeprecated-operatortokenvalue00';
const ns = 'coder';

let coder: CoderApiDouble;
let templates: CoderTemplateStorage;
let versions: CoderTemplateVersionStorage;

before(async () => {
  coder = await startCoderApiDouble({ tokens: [token] });
  const backend = staticBackend({ url: coder.url, token, namespace: ns, timeoutMs: 5_000, logger: createLogger({ level: 'error' }) });
  templates = new CoderTemplateStorage(backend);
  versions = new CoderTemplateVersionStorage(backend, templates);
});
after(async () => coder?.stop());

const coderList = async (q?: string) => {
  const url = new URL('/api/v2/templates', coder.url);
  if (q !== undefined) url.searchParams.set('q', q);
  const res = await fetch(url, { headers: { 'Coder-Session-Token': token } });
  return { status: res.status, body: (await res.json()) as any };
};

describe('deprecated templates', () => {
  beforeEach(() => {
    coder.reset();
    const org = seedOrganization(coder.state.world, 'acme');
    seedTemplateWithVersion(coder.state.world, org, { template: 'current', version: 'v1' });
    const { template } = seedTemplateWithVersion(coder.state.world, org, { template: 'old', version: 'v7' });
    Object.assign(template, { deprecated: true, deprecation_message: 'use acme.current' });
  });

  it('are listed with the others in codertemplates, as get finds them', async () => {
    const got = (await templates.get(ns, 'acme.old')) as CoderTemplate;
    assert.equal(got.status?.deprecated, true);
    const listed = (await templates.list(ns)) as CoderTemplate[];
    assert.deepEqual(
      listed.map((t) => [t.metadata.name, t.status?.deprecated]),
      [
        ['acme.current', false],
        ['acme.old', true],
      ],
    );
    assert.equal(listed[1]!.metadata.resourceVersion, got.metadata.resourceVersion, 'list and get agree');
  });

  it('have their versions listed in codertemplateversions', async () => {
    const listed = await versions.list(ns);
    assert.deepEqual(listed.map((v) => v.metadata.name).sort(), ['acme.current.v1', 'acme.old.v7']);
    assert.equal((await versions.get(ns, 'acme.old.v7')).metadata.name, 'acme.old.v7');
  });

  it("are left out of the double's template list unless deprecated:true asks, which lists only them, as in Coder", async () => {
    const names = (answer: { body: { name: string }[] }) => answer.body.map((t) => t.name);
    assert.deepEqual(names(await coderList()), ['current']);
    assert.deepEqual(names(await coderList('deprecated:true')), ['old']);
    assert.deepEqual(names(await coderList('deprecated:false')), ['current']);
    const bad = await coderList('deprecated:maybe');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.message, 'Invalid template search query.');
    assert.equal(bad.body.validations[0].field, 'deprecated');
    const unknown = await coderList('colour:red');
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body.validations, [{ field: 'colour', detail: '"colour" is not a valid query param' }]);
  });
});
