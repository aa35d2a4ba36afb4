import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCoderError } from '../../../../src/coder/error-body.ts';
import { CoderNetworkError, CoderTimeoutError } from '../../../../src/coder/errors.ts';
import { coderFailureStep } from '../../../../src/controllers/codertemplatetest/coder-failure.ts';

const answer = (status: number, body: unknown, path = '/api/v2/users/u/roles') =>
  parseCoderError({ method: 'GET', path, status, body: typeof body === 'string' ? body : JSON.stringify(body), buildVersion: 'v2.26.1' });

describe('the step a failed Coder call of a template test makes', () => {
  const rows: Array<[string, unknown, string]> = [
    ['a 405 (Coder serves the path, not the method)', answer(405, ''), 'fail EndpointNotFound'],
    ['a 404 "Route not found." (no such route in this release)', answer(404, { message: 'Route not found.' }), 'fail EndpointNotFound'],
    [
      'a 404 about an object',
      answer(404, { message: 'Resource not found or you do not have access to this resource' }),
      'wait CoderNotFound',
    ],
    ['a 503', answer(503, { message: 'unavailable' }), 'wait CoderUnavailable'],
    ['a 401', answer(401, { message: 'You are signed out' }), 'wait CoderUnavailable'],
    ['a refused connection', new CoderNetworkError('GET', '/api/v2/users/u', new TypeError('fetch failed')), 'wait CoderUnavailable'],
    ['a timeout', new CoderTimeoutError('GET', '/api/v2/users/u', 30_000), 'wait CoderUnavailable'],
  ];
  for (const [what, err, expected] of rows) {
    it(`makes ${what} ${expected}`, () => {
      const step = coderFailureStep(err);
      assert.equal(`${step.kind} ${'reason' in step ? step.reason : ''}`, expected);
    });
  }

  it('names the call and the release when Coder does not serve it, so a user knows what is wrong', () => {
    const step = coderFailureStep(answer(405, '', '/api/v2/organizations/o/members/u'));
    assert.match(
      step.message,
      /^Coder v2\.26\.1 does not serve GET \/api\/v2\/organizations\/o\/members\/u \(HTTP 405 Method Not Allowed\)/,
    );
    assert.ok(Buffer.byteLength(step.message) <= 256, step.message);
  });

  it('backs off on a 429 as before', () => {
    const step = coderFailureStep(answer(429, { message: 'rate limited' }));
    assert.equal(step.kind === 'wait' && step.rateLimited, true);
  });
});
