// A CoderTemplate's displayName, description and icon change in Coder without touching its other settings:
// Coder takes PATCH /api/v2/templates/{id} as the template's whole state (the double follows
// coder/coder v2.26.1 coderd/templates.go patchTemplateMeta), so the operator sends every setting as it is.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { staticBackend } from '../../../../../src/aggregated/backend.ts';
import type { CoderTemplate } from '../../../../../generated/aggregated/types.ts';
import { templateMetaUpdate } from '../../../../../src/aggregated/storage/codertemplate/template-settings.ts';
import { CoderTemplateStorage } from '../../../../../src/aggregated/storage/codertemplate/template-storage.ts';
import { createLogger } from '../../../../../src/runtime/logger.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../../../../harness/coder-api-double.ts';
import { seedOrganization, seedTemplateWithVersion } from '../../../../harness/coder-api-double/workspace-world.ts';

const token = 'templatesettings-operatortokenvalue0000';
const ns = 'coder';

let coder: CoderApiDouble;
let storage: CoderTemplateStorage;

before(async () => {
  coder = await startCoderApiDouble({ tokens: [token] });
  storage = new CoderTemplateStorage(
    staticBackend({ url: coder.url, token, namespace: ns, timeoutMs: 5_000, logger: createLogger({ level: 'error' }) }),
  );
});
after(async () => coder?.stop());

/** The settings a template admin set in Coder that a metadata change must keep. */
const settings = { default_ttl_ms: 7_200_000, activity_bump_ms: 1_800_000, allow_user_cancel_workspace_jobs: true };

describe('codertemplates metadata updates', () => {
  beforeEach(() => {
    coder.reset();
    const org = seedOrganization(coder.state.world, 'acme');
    const { template } = seedTemplateWithVersion(coder.state.world, org, { template: 'starter' });
    Object.assign(template, settings);
  });

  it("changes displayName, description and icon and keeps the template's TTL, activity bump and cancel setting", async () => {
    const live = (await storage.get(ns, 'acme.starter')) as CoderTemplate;
    const body = { ...live, spec: { ...live.spec, displayName: 'Starter', description: 'For new starters', icon: '/icon/code.svg' } };
    const { object } = await storage.update(ns, 'acme.starter', body, false);
    const updated = object as CoderTemplate;
    assert.equal(updated.spec.displayName, 'Starter');
    assert.equal(updated.spec.description, 'For new starters');
    assert.equal(updated.spec.icon, '/icon/code.svg');
    const inCoder = coder.state.world.templates.find((t) => t.name === 'starter')!;
    assert.deepEqual(
      {
        default_ttl_ms: inCoder.default_ttl_ms,
        activity_bump_ms: inCoder.activity_bump_ms,
        allow_user_cancel_workspace_jobs: inCoder.allow_user_cancel_workspace_jobs,
      },
      settings,
    );
    const patch = coder.requests.find((r) => r.operationId === 'updateTemplateMetadata');
    assert.equal((patch?.body as Record<string, unknown>).default_ttl_ms, 7_200_000, 'the PATCH carried the setting as it was');
  });

  it('clears the description when spec.description is removed, keeping the settings', async () => {
    coder.state.world.templates[0]!.description = 'old';
    const live = (await storage.get(ns, 'acme.starter')) as CoderTemplate;
    const { description: _, ...spec } = live.spec;
    await storage.update(ns, 'acme.starter', { ...live, spec }, false);
    const inCoder = coder.state.world.templates[0]!;
    assert.equal(inCoder.description, '');
    assert.equal(inCoder.default_ttl_ms, settings.default_ttl_ms);
  });

  it('sends nothing to Coder when the metadata is already as asked', async () => {
    const live = (await storage.get(ns, 'acme.starter')) as CoderTemplate;
    coder.requests.length = 0;
    const { object } = await storage.update(ns, 'acme.starter', live, false);
    assert.equal(object.metadata.resourceVersion, live.metadata.resourceVersion);
    assert.ok(!coder.requests.some((r) => r.method === 'PATCH'));
  });
});

describe('the PATCH body of a metadata change', () => {
  it('copies every number and boolean Coder would reset, and leaves out what Coder keeps when omitted', () => {
    const body = templateMetaUpdate(
      {
        id: '6a0b7c1e-1111-4c1e-9d7e-0c0a5e3b2d11',
        name: 'starter',
        organization_id: '6a0b7c1e-2222-4c1e-9d7e-0c0a5e3b2d11',
        active_version_id: '6a0b7c1e-3333-4c1e-9d7e-0c0a5e3b2d11',
        ...settings,
        allow_user_autostart: false,
        allow_user_autostop: true,
        failure_ttl_ms: 120_000,
        time_til_dormant_ms: 0,
        time_til_dormant_autodelete_ms: 0,
        require_active_version: true,
        deprecated: true,
        deprecation_message: 'use docker',
      },
      { display_name: 'Starter', description: '', icon: '' },
    );
    assert.deepEqual(body, {
      name: 'starter',
      display_name: 'Starter',
      description: '',
      icon: '',
      ...settings,
      allow_user_autostart: false,
      allow_user_autostop: true,
      failure_ttl_ms: 120_000,
      time_til_dormant_ms: 0,
      time_til_dormant_autodelete_ms: 0,
      require_active_version: true,
      update_workspace_last_used_at: false,
      update_workspace_dormant_at: false,
      disable_everyone_group_access: false,
    });
  });
});
