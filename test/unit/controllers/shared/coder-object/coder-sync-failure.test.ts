import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoderApiError, CoderNetworkError } from '../../../../../src/coder/errors.ts';
import { syncFailure } from '../../../../../src/controllers/shared/coder-object/coder-sync-failure.ts';

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
  it('names a call Coder does not serve (405, or 404 "Route not found.") and does not retry it', () => {
    for (const [status, body] of [
      [405, undefined],
      [404, 'Route not found.'],
    ] as const) {
      const err = new CoderApiError({
        method: 'PATCH',
        path: '/api/v2/ai/providers/x',
        status,
        ...(body ? { coderMessage: body } : {}),
        buildVersion: 'v2.26.1',
      });
      const failure = syncFailure('update the provider "x"', err);
      assert.equal(failure.retry, false);
      assert.equal(failure.condition.reason, 'CoderAPIError');
      assert.match(
        failure.condition.message,
        /^Could not update the provider "x": Coder v2\.26\.1 does not serve PATCH \/api\/v2\/ai\/providers\/x \(HTTP 40[45]/,
      );
    }
    const objectGone = syncFailure(
      'update',
      new CoderApiError({ method: 'PATCH', path: '/x', status: 404, coderMessage: 'Resource not found' }),
    );
    assert.equal(objectGone.retry, true, 'a 404 about an object is not a missing route');
  });

  it("keeps Coder's validation errors in the message", () => {
    assert.match(syncFailure('create', answered(400)).condition.message, /name: taken/);
  });
});
