import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCondition, removeCondition, setCondition } from '../../../src/runtime/conditions.ts';

const t1 = new Date('2026-01-01T00:00:00.400Z');
const t2 = new Date('2026-01-01T01:00:00Z');

describe('conditions', () => {
  it('adds a condition with observedGeneration and a second-precision transition time', () => {
    const list = setCondition([], { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting' }, 3, t1);
    assert.deepEqual(list, [
      {
        type: 'Ready',
        status: 'False',
        reason: 'Pending',
        message: 'waiting',
        observedGeneration: 3,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });

  it('keeps lastTransitionTime while the status stays, and moves it when the status changes', () => {
    let list = setCondition([], { type: 'Ready', status: 'False', reason: 'Pending', message: 'a' }, 1, t1);
    list = setCondition(list, { type: 'Ready', status: 'False', reason: 'StillPending', message: 'b' }, 2, t2);
    assert.equal(list[0]!.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(list[0]!.reason, 'StillPending');
    assert.equal(list[0]!.observedGeneration, 2);
    list = setCondition(list, { type: 'Ready', status: 'True', reason: 'Ready', message: 'c' }, 2, t2);
    assert.equal(list[0]!.lastTransitionTime, '2026-01-01T01:00:00Z');
  });

  it('replaces by type in place and removes by type', () => {
    let list = setCondition([], { type: 'A', status: 'True', reason: 'X', message: '' }, 1, t1);
    list = setCondition(list, { type: 'B', status: 'True', reason: 'X', message: '' }, 1, t1);
    list = setCondition(list, { type: 'A', status: 'False', reason: 'Y', message: '' }, 1, t2);
    assert.deepEqual(
      list.map((c) => `${c.type}=${c.status}`),
      ['A=False', 'B=True'],
    );
    assert.equal(findCondition(removeCondition(list, 'A'), 'A'), undefined);
    assert.equal(removeCondition(list, 'A').length, 1);
  });
});
