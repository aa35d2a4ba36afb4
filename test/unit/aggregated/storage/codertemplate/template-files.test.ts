// codertemplates spec.files against the Coder API double: create uploads the files
// and makes the template from the imported version; update uploads a new version only when the files
// change, keeps the archive's binary files and modes, and promotes it; a failed import changes nothing.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { staticBackend } from '../../../../../src/aggregated/backend.ts';
import type { CoderTemplate } from '../../../../../generated/aggregated/types.ts';
import { ApiStatusError } from '../../../../../src/aggregated/status.ts';
import { readTar, writeTar } from '../../../../../src/aggregated/storage/codertemplate/template-archive.ts';
import { CoderTemplateStorage } from '../../../../../src/aggregated/storage/codertemplate/template-storage.ts';
import { createLogger } from '../../../../../src/runtime/logger.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../../../../harness/coder-api-double.ts';
import { seedOrganization } from '../../../../harness/coder-api-double/workspace-world.ts';

const token = 'templatefiles-operatortokenvalue000000';
const ns = 'coder';
const mainTf = 'resource "null_resource" "a" {}\n';

let coder: CoderApiDouble;
let storage: CoderTemplateStorage;

const rejection = async (promise: Promise<unknown>): Promise<ApiStatusError> => {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiStatusError) return err;
    throw err;
  }
  throw new Error('no error');
};

/** The archive the double holds for a template's active version. */
function activeArchive(name: string) {
  const world = coder.state.world;
  const template = world.templates.find((t) => t.name === name)!;
  const version = world.templateVersions.find((v) => v.id === template.active_version_id)!;
  return readTar(world.files.get(version.job.file_id!)!.data);
}

const template = (files: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'aggregation.coder.com/v1alpha1',
  kind: 'CoderTemplate',
  metadata: { name: 'acme.files' },
  spec: { organization: 'acme', files, ...extra },
});

before(async () => {
  process.env.CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL = '10ms';
  coder = await startCoderApiDouble({ tokens: [token] });
  storage = new CoderTemplateStorage(
    staticBackend({ url: coder.url, token, namespace: ns, timeoutMs: 5_000, logger: createLogger({ level: 'error' }) }),
  );
});
after(async () => {
  delete process.env.CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL;
  await coder?.stop();
});

describe('codertemplates spec.files', () => {
  beforeEach(() => {
    coder.reset();
    seedOrganization(coder.state.world, 'acme');
  });

  it('creates a template from uploaded files once their version imported, and shows them on get', async () => {
    const created = (await storage.create(ns, template({ 'main.tf': mainTf, './README.md': '# hi\n' }))) as CoderTemplate;
    const ops = coder.requests.map((r) => r.operationId).filter((op) => op !== 'getOrganization');
    assert.deepEqual(ops.slice(0, 3), ['uploadFile', 'createTemplateVersion', 'getTemplateVersion']);
    assert.equal(ops.at(-1), 'createTemplate');
    assert.equal(coder.requests.find((r) => r.operationId === 'uploadFile')!.headers['content-type'], 'application/x-tar');
    assert.deepEqual(created.spec.files, { 'main.tf': mainTf, 'README.md': '# hi\n' });
    const got = (await storage.get(ns, 'acme.files')) as CoderTemplate;
    assert.deepEqual(got.spec.files, { 'main.tf': mainTf, 'README.md': '# hi\n' });
    assert.equal(got.spec.versionID, created.spec.versionID);
    const listed = (await storage.list(ns)) as CoderTemplate[];
    assert.equal(listed[0]!.spec.files, undefined, 'list leaves spec.files out');
    assert.equal(listed[0]!.metadata.resourceVersion, got.metadata.resourceVersion, 'list and get agree on the resourceVersion');
  });

  it('updates: a new version with the binary files and modes kept, promoted and shown; the same files again upload nothing', async () => {
    seedArchiveTemplate();
    const before = (await storage.get(ns, 'acme.files')) as CoderTemplate;
    assert.deepEqual(before.spec.files, { 'main.tf': 'old\n', 'old.tf': 'gone\n' }, 'binary.dat is hidden');
    const body = { ...before, spec: { ...before.spec, files: { 'main.tf': mainTf } } };
    const { object } = await storage.update(ns, 'acme.files', body, false);
    const after = object as CoderTemplate;
    assert.notEqual(after.spec.versionID, before.spec.versionID);
    assert.deepEqual(after.spec.files, { 'main.tf': mainTf });
    assert.notEqual(after.metadata.resourceVersion, before.metadata.resourceVersion);
    const archive = activeArchive('files');
    assert.deepEqual(
      archive.map((e) => [e.path, e.mode, e.data.toString('hex')]),
      [
        ['binary.dat', 0o600, '808182'],
        ['main.tf', 0o755, Buffer.from(mainTf).toString('hex')],
      ],
    );
    const newVersion = coder.state.world.templateVersions.find((v) => v.id === after.spec.versionID)!;
    assert.equal(newVersion.template_id, after.status!.id, 'the version was made for the template');

    coder.requests.length = 0;
    const again = await storage.update(ns, 'acme.files', { ...after, spec: { ...after.spec, files: { './main.tf': mainTf } } }, false);
    assert.equal((again.object as CoderTemplate).spec.versionID, after.spec.versionID);
    assert.ok(!coder.requests.some((r) => r.operationId === 'uploadFile' || r.operationId === 'createTemplateVersion'));
  });

  it('answers 400 with the import error and keeps the active version when the import fails', async () => {
    seedArchiveTemplate();
    const before = (await storage.get(ns, 'acme.files')) as CoderTemplate;
    coder.state.world.failNextImports.push('terraform init: missing provider');
    const err = await rejection(
      storage.update(ns, 'acme.files', { ...before, spec: { ...before.spec, displayName: 'New', files: { 'main.tf': 'broken' } } }, false),
    );
    assert.equal(err.code, 400);
    assert.match(err.message, /^template version "[0-9a-f-]{36}" build ended with status "failed": terraform init: missing provider$/);
    const t = coder.state.world.templates.find((x) => x.name === 'files')!;
    assert.equal(t.active_version_id, before.spec.versionID);
    assert.equal(t.display_name, '', 'metadata is applied only after the import');
  });

  it('refuses bad paths before calling Coder', async () => {
    for (const [files, why] of [
      [{ '../x.tf': '' }, /invalid template spec\.files: path "\.\.\/x\.tf" must not contain "\.\."/],
      [{ 'a.tf': '', './a.tf': '' }, /invalid template spec\.files: spec\.files has two keys for path "a\.tf"/],
    ] as const) {
      coder.requests.length = 0;
      const err = await rejection(storage.create(ns, template(files)));
      assert.equal(err.code, 400);
      assert.match(err.message, why);
      assert.deepEqual(coder.requests, []);
    }
  });
});

/** acme.files whose active version's archive holds main.tf (mode 0755), old.tf and a binary file. */
function seedArchiveTemplate(): void {
  const world = coder.state.world;
  const org = world.organizations.find((o) => o.name === 'acme')!;
  const fileId = crypto.randomUUID();
  const data = writeTar([
    { path: 'main.tf', mode: 0o755, data: Buffer.from('old\n') },
    { path: 'old.tf', mode: 0o644, data: Buffer.from('gone\n') },
    { path: 'binary.dat', mode: 0o600, data: Buffer.from([0x80, 0x81, 0x82]) },
  ]);
  world.files.set(fileId, { hash: fileId, data });
  const at = new Date().toISOString();
  const templateId = crypto.randomUUID();
  const versionId = crypto.randomUUID();
  world.templateVersions.push({
    id: versionId,
    template_id: templateId,
    organization_id: org.id,
    name: 'v0',
    job: { id: crypto.randomUUID(), status: 'succeeded', file_id: fileId },
  });
  world.templates.push({
    id: templateId,
    name: 'files',
    organization_id: org.id,
    organization_name: org.name,
    active_version_id: versionId,
    display_name: '',
    description: '',
    icon: '',
    deprecated: false,
    created_at: at,
    updated_at: at,
  });
}
