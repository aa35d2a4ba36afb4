import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deleteRetryDelayMs, rateLimitCapMs, rateLimitDelayMs } from '../../../../src/controllers/codertemplatetest/intervals.ts';
import { RateLimitMemory } from '../../../../src/controllers/codertemplatetest/rate-limit-memory.ts';

describe('template-test backoff', () => {
  it('waits 2 s after the first 429 and doubles per 429 in a row', () => {
    const middle = () => 0.5;
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => rateLimitDelayMs(n, middle)),
      [2_000, 4_000, 8_000, 16_000, 32_000, 64_000],
    );
  });

  it('caps the 429 wait at 2 minutes, jitter included', () => {
    for (const random of [() => 0, () => 0.5, () => 0.999999]) {
      for (const n of [7, 8, 20, 1_000]) assert.ok(rateLimitDelayMs(n, random) <= rateLimitCapMs);
    }
    assert.equal(
      rateLimitDelayMs(50, () => 0.999999),
      rateLimitCapMs,
    );
    assert.equal(
      rateLimitDelayMs(50, () => 0),
      96_000,
    );
  });

  it('jitters the 429 wait between 0.8 and 1.2 times', () => {
    assert.equal(
      rateLimitDelayMs(1, () => 0),
      1_600,
    );
    assert.equal(
      rateLimitDelayMs(1, () => 1),
      2_400,
    );
  });

  it('keeps the backoff per object, sends nothing before it is over, and forgets it', () => {
    const memory = new RateLimitMemory();
    const delay = memory.limited('a', 1_000, () => 0.5);
    assert.equal(delay, 2_000);
    assert.equal(memory.remainingMs('a', 2_000), 1_000);
    assert.equal(memory.remainingMs('b', 2_000), 0);
    assert.equal(
      memory.limited('a', 3_000, () => 0.5),
      4_000,
    );
    assert.equal(memory.count('a'), 2);
    memory.forget('a');
    assert.equal(memory.remainingMs('a', 3_000), 0);
    assert.equal(
      memory.limited('a', 3_000, () => 0.5),
      2_000,
    );
  });

  it('pauses an object without counting a 429', () => {
    const memory = new RateLimitMemory();
    memory.pause('a', 0, 60_000);
    assert.equal(memory.remainingMs('a', 59_000), 1_000);
    assert.equal(memory.count('a'), 0);
  });

  it('retries a failed delete build after 1 minute, doubling up to 30 minutes', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 50].map((n) => deleteRetryDelayMs(n) / 60_000),
      [1, 2, 4, 8, 16, 30, 30, 30],
    );
  });
});
