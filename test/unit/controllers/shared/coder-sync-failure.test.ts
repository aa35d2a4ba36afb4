import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoderApiError, CoderNetworkError } from '../../../../src/coder/errors.ts';
import { syncFailure } from '../../../../src/controllers/shared/coder-sync-failure.ts';

const answered = (status: number) =>
  new CoderApiError({
    method: 'POST',
    path: '/api/v2/ai/providers',
    status,
    coderMessage: 'no',
    validations: [{ field: 'name', detail: 'taken' }],
  });

describe('Synced after a failed call', () => {
  const rows: [unknown, string, boolean][] = [
    [answered(400), 'CoderValidationFailed', false],
    [answered(401), 'Forbidden', false],
    [answered(403), 'Forbidden', false],
    [answered(429), 'RateLimited', true],
    [answered(500), 'CoderAPIError', true],
    [new CoderNetworkError('GET', '/api/v2/ai/providers', new TypeError('fetch failed')), 'CoderAPIError', true],
  ];
  for (const [err, reason, retry] of rows) {
    it(`is ${reason} for ${(err as Error).message}`, () => {
      const failure = syncFailure('create the provider "x"', err);
      assert.equal(failure.condition.reason, reason);
      assert.equal(failure.condition.status, 'False');
      assert.equal(failure.retry, retry);
      assert.match(failure.condition.message, /^Could not create the provider "x": /);
    });
  }
  it("keeps Coder's validation errors in the message", () => {
    assert.match(syncFailure('create', answered(400)).condition.message, /name: taken/);
  });
});
