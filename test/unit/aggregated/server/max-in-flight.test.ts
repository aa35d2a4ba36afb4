import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MaxInFlight } from '../../../../src/aggregated/server/filters/max-in-flight.ts';

/** A request that holds its slot until `release` is called. */
function held() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { serve: () => done, release };
}

describe('in-flight limits', () => {
  it('turns away a read or a write past its own limit with 429, and frees the slot when the request ends', async () => {
    const limits = new MaxInFlight({ reads: 1, writes: 1 });
    const read = held();
    const write = held();
    const reading = limits.run('get', [], read.serve);
    const writing = limits.run('patch', [], write.serve);
    await assert.rejects(
      limits.run('list', ['system:authenticated'], async () => {}),
      { code: 429, details: { retryAfterSeconds: 1 } },
    );
    await assert.rejects(
      limits.run('create', [], async () => {}),
      /too many requests in flight/,
    );
    read.release();
    write.release();
    await Promise.all([reading, writing]);
    let served = 0;
    await limits.run('get', [], async () => void served++);
    await limits.run('delete', [], async () => void served++);
    assert.equal(served, 2);
  });

  it('serves system:masters past the limit, as kube-apiserver does, without taking a slot others then miss', async () => {
    const limits = new MaxInFlight({ reads: 1, writes: 1 });
    const first = held();
    const holding = limits.run('update', [], first.serve);
    const admin = held();
    const adminWrite = limits.run('update', ['system:masters', 'system:authenticated'], admin.serve);
    await assert.rejects(
      limits.run('update', [], async () => {}),
      { code: 429 },
    );
    first.release();
    await holding;
    let served = false;
    await limits.run('update', [], async () => void (served = true));
    assert.ok(served, 'the slot the first write held is free although the admin write still runs');
    admin.release();
    await adminWrite;
  });
});
