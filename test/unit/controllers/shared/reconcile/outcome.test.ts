import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Outcomes } from '../../../../../src/controllers/shared/reconcile/outcome.ts';

describe('Outcomes', () => {
  it('stays durable once a step recorded what it made outside the cluster, whatever the later steps add', () => {
    const out = new Outcomes<{ id?: string }>();
    out.add({ status: { id: 'a' } });
    assert.equal(out.durable, false);
    out.add({ status: { id: 'b' }, durable: true }).add({ error: new Error('later') });
    assert.equal(out.durable, true);
    assert.deepEqual(out.status, { id: 'b' });
  });
});
