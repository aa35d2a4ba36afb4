import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allOrFirstFailure } from '../../../src/runtime/all-or-first-failure.ts';

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const failLater = (ms: number, message: string) => new Promise<never>((_, reject) => setTimeout(() => reject(new Error(message)), ms));

describe('allOrFirstFailure', () => {
  it('gives every value in the order of the steps', async () => {
    assert.deepEqual(await allOrFirstFailure([later(20, 'a'), later(1, 2), Promise.resolve(undefined)]), ['a', 2, undefined]);
  });

  it('rethrows the first failure in order, only after every step has ended', async () => {
    let slowEnded = false;
    const slow = later(30, 'slow').then((v) => {
      slowEnded = true;
      return v;
    });
    await assert.rejects(allOrFirstFailure([failLater(10, 'second'), failLater(1, 'first-to-fail'), slow]), /second/);
    assert.equal(slowEnded, true, 'the slow sibling had ended before the failure was reported');
  });
});
