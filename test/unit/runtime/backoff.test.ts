import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Backoff } from '../../../src/runtime/backoff.ts';

describe('Backoff', () => {
  it('doubles up to the cap, and starts over after a quiet spell', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 1_000, resetAfterMs: 60_000 });
    const delays = [0, 1, 2, 3, 4, 5].map((i) => backoff.next(i, 0));
    assert.deepEqual(delays, [100, 200, 400, 800, 1_000, 1_000]);
    assert.equal(backoff.next(5 + 60_001, 0), 100);
  });

  it('stretches each delay by up to the jitter, never past the cap', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 300, resetAfterMs: 60_000, jitter: 1 });
    assert.equal(backoff.next(0, 0.5), 150);
    assert.equal(backoff.next(1, 0.99), 300);
    assert.equal(backoff.next(2, 0.99), 300);
  });
});
