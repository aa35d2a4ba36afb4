import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRetryAfter, retryDelay } from '../../../src/coder/retry.ts';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  const cases: Array<[string | null, number | undefined]> = [
    [null, undefined],
    ['0', 0],
    ['2', 2000],
    [' 5 ', 5000],
    ['Wed, 01 Jan 2025 00:00:10 GMT', 10_000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
    ['-1', undefined],
    ['1.5', undefined],
    ['soon', undefined],
  ];
  for (const [value, expected] of cases) {
    it(`reads ${JSON.stringify(value)} as ${expected}`, () => assert.equal(parseRetryAfter(value, now), expected));
  }
});

describe('retryDelay', () => {
  const policy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };

  it('doubles from the base, with jitter between half and all of the step', () => {
    assert.equal(
      retryDelay(1, undefined, policy, () => 0),
      50,
    );
    assert.equal(
      retryDelay(1, undefined, policy, () => 1),
      100,
    );
    assert.equal(
      retryDelay(2, undefined, policy, () => 1),
      200,
    );
    assert.equal(
      retryDelay(3, undefined, policy, () => 0.5),
      300,
    );
  });

  it('never waits longer than the cap', () => {
    assert.equal(
      retryDelay(10, undefined, policy, () => 1),
      1000,
    );
    assert.equal(retryDelay(1, 60_000, policy), 1000);
  });

  it('follows Retry-After when the server sent one', () => {
    assert.equal(
      retryDelay(1, 700, policy, () => 0),
      700,
    );
    assert.equal(
      retryDelay(3, 0, policy, () => 1),
      0,
    );
  });
});
