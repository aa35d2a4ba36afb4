// The double's templates and template versions answer as coder/coder v2.26.1 does (coderd/templates.go
// postTemplateByOrganization and patchTemplateMeta, coderd/templateversions.go postTemplateVersionsByOrganization
// and patchActiveTemplateVersion, coderd/workspaces.go createWorkspace); each case names what Coder checks.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { components } from '../../../generated/coder-api.ts';
import type { CoderApiDoubleState } from '../../harness/coder-api-double.ts';
import type { Answer, Handler } from '../../harness/coder-api-double/handlers.ts';
import { initialState } from '../../harness/coder-api-double/state.ts';
import { templateHandlers } from '../../harness/coder-api-double/template-handlers.ts';
import { workspaceHandlers } from '../../harness/coder-api-double/workspace-handlers.ts';
import { seedOrganization, seedTemplateWithVersion } from '../../harness/coder-api-double/workspace-world.ts';

type Schemas = components['schemas'];

const missing = '5e9b1c2a-7d4e-4f6a-8b3c-9a1d2e3f4b5c';

describe("the Coder API double's templates and versions", () => {
  let state: CoderApiDoubleState;
  let org: Schemas['Organization'];
  let file: string;
  const call = (handler: Handler | undefined, params: Record<string, unknown>, body?: unknown): Answer =>
    handler!({ state, params, body, user: state.users[0] });
  const newVersion = (body: Record<string, unknown> = {}, organization = org) =>
    call(
      templateHandlers.createTemplateVersion,
      { organization: organization.id },
      {
        storage_method: 'file',
        file_id: file,
        provisioner: 'terraform',
        ...body,
      },
    );
  const newTemplate = (name: string, versionId: string, organization = org) =>
    call(templateHandlers.createTemplate, { organization: organization.id }, { name, template_version_id: versionId });
  const body = (answer: Answer) => answer.body as Record<string, any>;

  beforeEach(() => {
    state = initialState([]);
    org = state.world.organizations[0]!;
    file = body(call(templateHandlers.uploadFile, {}, new Uint8Array([1, 2, 3]))).hash;
  });

  it('creates a template of a version whose import has not ended, or failed, as Coder does not check the import', () => {
    const pending = body(newVersion());
    assert.equal(pending.job.status, 'pending');
    assert.equal(newTemplate('early', pending.id).status, 201);
    state.world.failNextImports.push('boom');
    const failing = body(newVersion());
    for (let i = 0; i < 2; i++) call(workspaceHandlers.getTemplateVersion, { templateVersion: failing.id });
    assert.equal(failing.job.status, 'failed');
    assert.equal(newTemplate('broken', failing.id).status, 201);
  });

  it('refuses a name the organization has in any case, with the validation Coder sends (409)', () => {
    assert.equal(newTemplate('diff', body(newVersion()).id).status, 201);
    const again = newTemplate('DIFF', body(newVersion()).id);
    assert.deepEqual(again, {
      status: 409,
      body: {
        message: 'Template with name "DIFF" already exists.',
        validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      },
    });
    const other = seedOrganization(state.world, 'other');
    assert.equal(newTemplate('diff', body(newVersion({}, other)).id, other).status, 201, 'another organization may have the name');
  });

  it('refuses a missing, archived or already used version as Coder does, and takes one of another organization', () => {
    assert.deepEqual(newTemplate('a', missing), {
      status: 404,
      body: {
        message: `Template version "${missing}" does not exist.`,
        validations: [{ field: 'template_version_id', detail: 'Template version does not exist' }],
      },
    });
    const archived = body(newVersion());
    state.world.templateVersions.find((v) => v.id === archived.id)!.archived = true;
    assert.deepEqual(newTemplate('a', archived.id), {
      status: 400,
      body: {
        message: `Template version ${archived.id} is archived.`,
        validations: [{ field: 'template_version_id', detail: 'Template version is archived' }],
      },
    });
    const used = seedTemplateWithVersion(state.world, org, { template: 'used' }).version;
    assert.deepEqual(newTemplate('a', used.id), {
      status: 400,
      body: {
        message: `Template version ${used.id} is already part of a template`,
        validations: [{ field: 'template_version_id', detail: 'Template version is already part of a template' }],
      },
    });
    assert.equal(used.template_id, state.world.templates.find((t) => t.name === 'used')!.id, 'the version stays with its template');
    const other = seedOrganization(state.world, 'other');
    assert.equal(newTemplate('a', body(newVersion({}, other)).id).status, 201, 'Coder reads the version by id alone');
  });

  it('writes a PATCH that omits the name (200, the name kept) and refuses a name another template has in any case (409)', () => {
    const { template } = seedTemplateWithVersion(state.world, org, { template: 'diff' });
    seedTemplateWithVersion(state.world, org, { template: 'held' });
    const settings = { allow_user_autostart: true, allow_user_autostop: true, activity_bump_ms: 3_600_000 };
    const patch = (request: Record<string, unknown>) => call(templateHandlers.updateTemplateMetadata, { template: template.id }, request);
    assert.equal(patch({ name: 'diff', ...settings }).status, 304, 'the name as it is and nothing else changed');
    const unnamed = patch(settings);
    assert.equal(unnamed.status, 200, 'Coder compares req.Name == template.Name, so an omitted name always writes');
    assert.equal(body(unnamed).name, 'diff');
    assert.deepEqual(patch({ name: 'HELD', ...settings }), {
      status: 409,
      body: {
        message: 'Template with name "HELD" already exists.',
        validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      },
    });
    assert.equal(template.name, 'diff');
    assert.equal(body(patch({ name: 'DIFF', ...settings })).name, 'DIFF', 'its own name in another case is no conflict');
  });

  it('creates versions as Coder does: 404 for an unknown file, 400 for an unknown example, 409 for a name the template has', () => {
    assert.deepEqual(newVersion({ file_id: missing }), { status: 404, body: { message: 'File not found.' } });
    const fromExample = { storage_method: 'file', provisioner: 'terraform', example_id: 'nope' };
    assert.deepEqual(call(templateHandlers.createTemplateVersion, { organization: org.id }, fromExample), {
      status: 400,
      body: { message: 'Example not found.', detail: 'example with id "nope" not found: example not found' },
    });
    assert.deepEqual(newVersion({ template_id: missing }), { status: 404, body: { message: 'Template does not exist.' } });
    const { template } = seedTemplateWithVersion(state.world, org, { template: 'diff', version: 'second' });
    assert.deepEqual(newVersion({ template_id: template.id, name: 'second' }), {
      status: 409,
      body: {
        message: 'A template version with name "second" already exists for this template.',
        validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      },
    });
    assert.equal(newVersion({ name: 'second' }).status, 201, 'a version of no template has no name to clash with');
    const other = seedOrganization(state.world, 'other');
    assert.equal(newVersion({ template_id: template.id }, other).status, 201, 'Coder reads the template by id alone');
  });

  it('promotes only a known, imported, unarchived version of the template, answering as Coder does otherwise', () => {
    const { template } = seedTemplateWithVersion(state.world, org, { template: 'diff' });
    const promote = (id: string) => call(templateHandlers.updateActiveTemplateVersion, { template: template.id }, { id });
    assert.deepEqual(promote(missing), { status: 404, body: { message: 'Template version not found.' } });
    const elsewhere = seedTemplateWithVersion(state.world, org, { template: 'other' }).version;
    assert.equal(promote(elsewhere.id).status, 400);
    const pending = body(newVersion({ template_id: template.id }));
    assert.deepEqual(promote(pending.id), {
      status: 403,
      body: {
        message: 'Only versions that have been built successfully can be promoted.',
        detail: 'Attempted to promote a version with a pending build',
      },
    });
    const archived = seedTemplateWithVersion(state.world, org, { template: 'x' }).version;
    Object.assign(archived, { template_id: template.id, archived: true });
    assert.deepEqual(promote(archived.id), { status: 400, body: { message: 'The provided template version is archived.' } });
  });

  it('makes no workspace of a deprecated template, with the deprecation message as the detail (400)', () => {
    const { template } = seedTemplateWithVersion(state.world, org, { template: 'old' });
    Object.assign(template, { deprecated: true, deprecation_message: 'use new' });
    const answer = call(workspaceHandlers.createUserWorkspace, { user: 'me' }, { name: 'ws', template_id: template.id });
    assert.deepEqual(answer, {
      status: 400,
      body: { message: 'Template "old" has been deprecated, and cannot be used to create a new workspace.', detail: 'use new' },
    });
    assert.equal(state.world.workspaces.length, 0);
  });

  it("reads q on an organization's template list, with the organization of the path", () => {
    seedTemplateWithVersion(state.world, org, { template: 'alpha' });
    seedTemplateWithVersion(state.world, org, { template: 'beta' });
    seedTemplateWithVersion(state.world, seedOrganization(state.world, 'other'), { template: 'alphabet' });
    const list = (q: string) => call(workspaceHandlers.listOrganizationTemplates, { organization: org.id, q });
    assert.deepEqual(
      (list('alp').body as { name: string }[]).map((t) => t.name),
      ['alpha'],
    );
    assert.deepEqual(
      (list('organization:other').body as { name: string }[]).map((t) => t.name),
      ['alpha', 'beta'],
    );
    assert.equal(list('colour:red').status, 400);
  });
});
