// Template archives are downloaded once per file id (Coder's files never change, and /api/v2/files is
// rate limited: coder/coder v2.26.1 coderd/coderd.go FilesRateLimit), the cache is bounded by bytes, and a
// template write Coder applied is answered as a success even when reading its files back fails.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { staticBackend } from '../../../../../src/aggregated/backend.ts';
import type { CoderTemplate } from '../../../../../generated/aggregated/types.ts';
import { writeTar } from '../../../../../src/aggregated/storage/codertemplate/template-archive.ts';
import { TemplateFileCache } from '../../../../../src/aggregated/storage/codertemplate/template-file-cache.ts';
import { CoderTemplateStorage } from '../../../../../src/aggregated/storage/codertemplate/template-storage.ts';
import { createLogger } from '../../../../../src/runtime/logger.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../../../../harness/coder-api-double.ts';
import { seedOrganization, seedTemplateWithVersion } from '../../../../harness/coder-api-double/workspace-world.ts';

const token = 'templatefilecache-operatortokenvalue000';
const ns = 'coder';
const mainTf = 'resource "null_resource" "a" {}\n';

let coder: CoderApiDouble;
let warnings: string[];

before(async () => {
  process.env.CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL = '10ms';
  coder = await startCoderApiDouble({ tokens: [token] });
});
after(async () => {
  delete process.env.CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL;
  await coder?.stop();
});

/** A storage of its own (an empty cache), as a freshly started operator has. */
function freshStorage() {
  warnings = [];
  return new CoderTemplateStorage(
    staticBackend({ url: coder.url, token, namespace: ns, timeoutMs: 5_000, logger: createLogger({ level: 'error' }) }),
    { logger: { warn: (_obj: object, msg?: string) => void warnings.push(msg ?? '') } as never },
  );
}

const downloads = () => coder.requests.filter((r) => r.operationId === 'downloadFile').length;

/** acme.files, whose active version's archive holds main.tf. */
function seedTemplateWithFiles(): void {
  const world = coder.state.world;
  const org = seedOrganization(world, 'acme');
  const { version } = seedTemplateWithVersion(world, org, { template: 'files' });
  const fileId = randomUUID();
  world.files.set(fileId, { hash: fileId, data: writeTar([{ path: 'main.tf', mode: 0o644, data: Buffer.from(mainTf) }]) });
  version.job.file_id = fileId;
}

describe('template file cache', () => {
  it('keeps the most recently used archives within its bytes, and no archive larger than all of them', async () => {
    const cache = new TemplateFileCache(10);
    const fail = () => Promise.reject(new Error('not cached'));
    cache.put('http://a', 'one', Buffer.alloc(4));
    cache.put('http://a', 'two', Buffer.alloc(4));
    void cache.get('http://a', 'one', fail);
    cache.put('http://a', 'three', Buffer.alloc(4));
    assert.deepEqual(cache.size, { entries: 2, bytes: 8 });
    cache.put('http://a', 'huge', Buffer.alloc(11));
    assert.deepEqual(cache.size, { entries: 2, bytes: 8 }, 'an archive larger than the cache is not kept');
    await Promise.all([
      cache.get('http://a', 'one', fail),
      cache.get('http://a', 'three', fail),
      assert.rejects(cache.get('http://a', 'two', fail), /not cached/, 'the least recently used went first'),
      assert.rejects(cache.get('http://b', 'one', fail), /not cached/, 'another Coder has other files'),
    ]);
  });

  it('shares one download among readers of the same file, and keeps no failure', async () => {
    const cache = new TemplateFileCache();
    let calls = 0;
    const download = async () => {
      calls++;
      if (calls === 1) throw new Error('429');
      return Buffer.from('tar');
    };
    await assert.rejects(cache.get('http://a', 'f', download), /429/);
    const [a, b] = await Promise.all([cache.get('http://a', 'f', download), cache.get('http://a', 'f', download)]);
    assert.equal(calls, 2);
    assert.equal(a, b);
    assert.equal((await cache.get('http://a', 'f', download)).toString(), 'tar');
    assert.equal(calls, 2);
  });
});

describe('codertemplates spec.files reads', () => {
  beforeEach(() => {
    coder.reset();
    seedTemplateWithFiles();
  });

  it('downloads a template archive once however many gets read it', async () => {
    const storage = freshStorage();
    for (let i = 0; i < 20; i++) {
      const got = (await storage.get(ns, 'acme.files')) as CoderTemplate;
      assert.deepEqual(got.spec.files, { 'main.tf': mainTf });
    }
    assert.equal(downloads(), 1);
  });

  it('reads back new spec.files from what it uploaded, without downloading them', async () => {
    const storage = freshStorage();
    const live = (await storage.get(ns, 'acme.files')) as CoderTemplate;
    const { object } = await storage.update(ns, 'acme.files', { ...live, spec: { ...live.spec, files: { 'main.tf': '# new\n' } } }, false);
    assert.deepEqual((object as CoderTemplate).spec.files, { 'main.tf': '# new\n' });
    assert.equal(((await storage.get(ns, 'acme.files')) as CoderTemplate).spec.files!['main.tf'], '# new\n');
    assert.equal(downloads(), 1, 'only the first version was downloaded');
  });

  it('answers a metadata change Coder applied as a success when reading the files back is rate limited', async () => {
    const storage = freshStorage();
    const live = (await freshStorage().get(ns, 'acme.files')) as CoderTemplate;
    coder.failNext(10, 429, { pathPrefix: '/api/v2/files/', retryAfterSeconds: 0 });
    // A replace without spec.files (kubectl replace of a manifest that leaves them out) reads no files before the write.
    const { files: _, ...spec } = live.spec;
    const { object } = await storage.update(ns, 'acme.files', { ...live, spec: { ...spec, displayName: 'Files' } }, false);
    const updated = object as CoderTemplate;
    assert.equal(updated.spec.displayName, 'Files');
    assert.equal(updated.spec.files, undefined, 'the files could not be read back');
    assert.equal(coder.state.world.templates[0]!.display_name, 'Files');
    assert.match(warnings.join('\n'), /changed in Coder, but its files could not be read back/);
  });
});
