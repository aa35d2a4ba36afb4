import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailedReviewLimit } from '../../../../src/aggregated/auth/failed-review-limit.ts';
import type { ApiStatusError } from '../../../../src/aggregated/status.ts';

describe('failed TokenReviews per source', () => {
  it('allows 10 failed reviews from one address, then answers 429 until the bucket refills, one every 6 s', () => {
    let now = 0;
    const limit = new FailedReviewLimit(() => now);
    for (let i = 0; i < 10; i++) {
      limit.check('10.0.0.1');
      limit.failed('10.0.0.1');
    }
    const refused = (() => {
      try {
        limit.check('10.0.0.1');
      } catch (err) {
        return err as ApiStatusError;
      }
    })();
    assert.deepEqual([refused?.code, refused?.details?.retryAfterSeconds], [429, 6]);
    limit.check('10.0.0.2');
    now += 6_000;
    limit.check('10.0.0.1');
    limit.failed('10.0.0.1');
    assert.throws(() => limit.check('10.0.0.1'), /too many requests with bearer tokens/);
    now += 60_000;
    for (let i = 0; i < 10; i++) {
      limit.check('10.0.0.1');
      limit.failed('10.0.0.1');
    }
    assert.throws(() => limit.check('10.0.0.1'), 'the bucket holds 10 at most');
  });
});
