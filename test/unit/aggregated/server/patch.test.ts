import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonPatch } from '../../../../src/aggregated/server/json-patch.ts';
import { applyPatch, parsePatchBody } from '../../../../src/aggregated/server/patch.ts';
import { applyMergePatch } from '../../../../src/runtime/merge-patch.ts';
import { ApiStatusError } from '../../../../src/aggregated/status.ts';

describe('patches of the aggregated resources', () => {
  const live = { metadata: { name: 'a.b.c', resourceVersion: '1' }, spec: { running: true, templateName: 't' } };

  it('merges, deleting keys set to null; a strategic merge patch is the same', () => {
    assert.deepEqual(applyMergePatch(live, { spec: { running: false, templateName: null } }), {
      metadata: { name: 'a.b.c', resourceVersion: '1' },
      spec: { running: false },
    });
    assert.deepEqual(
      applyPatch('application/strategic-merge-patch+json', live, { spec: { running: false } }),
      applyPatch('application/merge-patch+json', live, { spec: { running: false } }),
    );
  });

  it('applies RFC 6902 operations and fails a test op with 422', () => {
    const out = jsonPatch(live, [
      { op: 'replace', path: '/spec/running', value: false },
      { op: 'add', path: '/spec/ttlMillis', value: 5 },
      { op: 'remove', path: '/spec/templateName' },
      { op: 'copy', from: '/spec/ttlMillis', path: '/spec/copy' },
    ]);
    assert.deepEqual(out, { metadata: live.metadata, spec: { running: false, ttlMillis: 5, copy: 5 } });
    assert.equal(live.spec.running, true, 'the live object is not changed');
    assert.throws(
      () => jsonPatch(live, [{ op: 'test', path: '/spec/running', value: false }]),
      (e: ApiStatusError) => e.code === 422,
    );
    assert.throws(
      () => jsonPatch(live, [{ op: 'replace', path: '/spec/missing/x', value: 1 }]),
      (e: ApiStatusError) => e.code === 400,
    );
  });

  it('reads server-side apply bodies as YAML', () => {
    assert.deepEqual(parsePatchBody('application/apply-patch+yaml', 'spec:\n  running: true\n'), { spec: { running: true } });
    assert.throws(
      () => parsePatchBody('application/merge-patch+json', '{'),
      (e: ApiStatusError) => e.code === 400,
    );
  });
});
