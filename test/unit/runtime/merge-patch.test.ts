import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonEqual, jsonSubset } from '../../../src/runtime/equality.ts';
import { applyMergePatch, mergePatchDiff } from '../../../src/runtime/merge-patch.ts';

describe('mergePatchDiff', () => {
  it('is undefined when nothing changed, so nothing is written', () => {
    assert.equal(mergePatchDiff({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }), undefined);
  });

  it('sets changed fields, nulls removed ones, diffs nested objects and replaces arrays', () => {
    const from = { phase: 'Pending', url: 'http://x', ref: { name: 's', key: 'token' }, conditions: [{ type: 'A' }] };
    const to = { phase: 'Ready', ref: { name: 's' }, conditions: [{ type: 'A' }, { type: 'B' }], ready: true };
    assert.deepEqual(mergePatchDiff(from, to), {
      phase: 'Ready',
      url: null,
      ref: { key: null },
      conditions: [{ type: 'A' }, { type: 'B' }],
      ready: true,
    });
  });

  it('applies a patch as the API server does: the diff from one value applied to it gives the other', () => {
    const from = { phase: 'Pending', url: 'http://x', ref: { name: 's', key: 'token' }, other: 1 };
    const to = { phase: 'Ready', ref: { name: 's' }, conditions: [{ type: 'B' }], other: 1 };
    assert.deepEqual(applyMergePatch(from, mergePatchDiff(from, to)), to);
    // Applied to a newer value, the same patch keeps what it does not mention.
    assert.deepEqual(applyMergePatch({ ...from, extra: true }, mergePatchDiff(from, to)), { ...to, extra: true });
  });
});

describe('JSON equality and subset', () => {
  it('ignores key order and undefined values', () => {
    assert.ok(jsonEqual({ a: 1, b: undefined, c: [{ d: 2 }] }, { c: [{ d: 2 }], a: 1 }));
    assert.ok(!jsonEqual({ a: [1, 2] }, { a: [2, 1] }));
  });

  it('finds desired fields in a live object that has more', () => {
    const live = {
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', image: 'i', terminationMessagePath: '/dev/x' }] } } },
    };
    assert.ok(jsonSubset({ spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } }, live));
    assert.ok(!jsonSubset({ spec: { replicas: 2 } }, live));
    assert.ok(!jsonSubset({ spec: { template: { spec: { containers: [] } } } }, live));
  });
});
