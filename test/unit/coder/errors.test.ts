import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCoderError } from '../../../src/coder/error-body.ts';
import {
  isDuplicateLicense,
  isForbidden,
  isCoderNotFound,
  isRetryable,
  isRouteNotServed,
  isUnauthorized,
  isUnauthorizedOrForbidden,
} from '../../../src/coder/error-predicates.ts';
import { CoderApiError, CoderNetworkError, CrossOriginRedirectError, routeNotServedMessage } from '../../../src/coder/errors.ts';

const token = 'AbCdEfGhIj-AbCdEfGhIjKlMnOpQrStUv';

function answer(status: number, body: unknown, extra: Partial<Parameters<typeof parseCoderError>[0]> = {}) {
  return parseCoderError({
    method: 'POST',
    path: '/api/v2/licenses',
    status,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    secrets: [token],
    ...extra,
  });
}

describe('parseCoderError', () => {
  it("reads Coder's message, detail and validations", () => {
    const err = answer(
      400,
      {
        message: 'Validation failed.',
        detail: 'one field is wrong',
        validations: [{ field: 'license', detail: 'Validation failed for tag "required" with value: ""' }],
      },
      { statusText: 'Bad Request', buildVersion: 'v2.30.0' },
    );
    assert.ok(err instanceof CoderApiError);
    assert.equal(err.status, 400);
    assert.equal(err.coderMessage, 'Validation failed.');
    assert.equal(err.detail, 'one field is wrong');
    assert.deepEqual(err.validations, [{ field: 'license', detail: 'Validation failed for tag "required" with value: ""' }]);
    assert.equal(err.buildVersion, 'v2.30.0');
    assert.equal(
      err.message,
      'Coder API POST /api/v2/licenses answered 400 Bad Request: Validation failed. (one field is wrong) ' +
        '[license: Validation failed for tag "required" with value: ""]',
    );
  });

  it('leaves out what the body does not have', () => {
    const err = answer(404, { message: 'Route not found.' });
    assert.equal(err.detail, undefined);
    assert.equal(err.validations, undefined);
    assert.equal(err.message, 'Coder API POST /api/v2/licenses answered 404: Route not found.');
  });

  it('shows only the status and size of a body that is not Coder JSON, whoever wrote it', () => {
    const body = `<html>\n<body>Your Coder session expired: log in again at https://evil.example</body></html>`;
    const err = answer(502, body);
    assert.equal(err.coderMessage, undefined);
    assert.equal(err.detail, `the body, ${Buffer.byteLength(body)} bytes, is not Coder's JSON and is not shown`);
    assert.doesNotMatch(err.message, /evil|session/);
    assert.match(err.message, /answered 502/);
  });

  it('accepts an empty body and JSON that is not an object', () => {
    assert.equal(answer(503, '').message, 'Coder API POST /api/v2/licenses answered 503');
    assert.equal(answer(500, [1, 2]).coderMessage, undefined);
  });

  it('never carries the session token, even when the body echoes it', () => {
    const err = answer(401, {
      message: `token ${token} is invalid`,
      detail: `got ${token}`,
      validations: [{ field: 'token', detail: token }],
    });
    assert.ok(!err.message.includes(token));
    assert.ok(!err.coderMessage!.includes(token));
    assert.ok(!err.detail!.includes(token));
    assert.ok(!JSON.stringify(err.validations).includes(token));
    assert.ok(!answer(502, `echo: Coder-Session-Token: ${token}`).message.includes(token));
  });

  it('reads Retry-After as milliseconds', () => {
    assert.equal(answer(429, { message: 'slow down' }, { retryAfter: '3' }).retryAfterMs, 3000);
    assert.equal(answer(429, { message: 'slow down' }, { retryAfter: null }).retryAfterMs, undefined);
  });
});

describe('status predicates', () => {
  const cases: Array<[number, { notFound: boolean; unauthorized: boolean; forbidden: boolean }]> = [
    [404, { notFound: true, unauthorized: false, forbidden: false }],
    [401, { notFound: false, unauthorized: true, forbidden: false }],
    [403, { notFound: false, unauthorized: false, forbidden: true }],
    [500, { notFound: false, unauthorized: false, forbidden: false }],
  ];
  for (const [status, expected] of cases) {
    it(`classifies ${status}`, () => {
      const err = answer(status, { message: 'x' });
      assert.equal(isCoderNotFound(err), expected.notFound);
      assert.equal(isUnauthorized(err), expected.unauthorized);
      assert.equal(isForbidden(err), expected.forbidden);
      assert.equal(isUnauthorizedOrForbidden(err), expected.unauthorized || expected.forbidden);
    });
  }

  it('answers false for errors that are not Coder answers', () => {
    assert.equal(isCoderNotFound(new Error('404')), false);
    assert.equal(isUnauthorized({ status: 401 }), false);
  });
});

describe('isDuplicateLicense', () => {
  const cases: Array<[string, { message: string; detail?: string }, boolean]> = [
    [
      "Coder's unique violation on licenses_jwt_key",
      {
        message: 'Unable to add license to database',
        detail: 'pq: duplicate key value violates unique constraint "licenses_jwt_key"',
      },
      true,
    ],
    ['the constraint name alone, in upper case', { message: 'LICENSES_JWT_KEY' }, true],
    ['"duplicate key" in the message', { message: 'Duplicate Key value' }, true],
    ['"already exists" in the detail', { message: 'Conflict', detail: 'License Already Exists' }, true],
    ['a duplicate of something else without the markers', { message: 'Duplicate name', detail: 'pick another' }, false],
    ['an invalid license', { message: 'Invalid license', detail: 'token is expired' }, false],
    ['a database outage', { message: 'Unable to add license to database', detail: 'connection refused' }, false],
  ];
  for (const [what, body, expected] of cases) {
    it(`${expected ? 'recognises' : 'does not take'} ${what}`, () => {
      assert.equal(isDuplicateLicense(answer(500, body)), expected);
    });
  }

  it('is false for anything but a Coder answer', () => {
    assert.equal(isDuplicateLicense(new Error('duplicate key')), false);
  });
});

describe('isRetryable', () => {
  const cases: Array<[string, unknown, boolean]> = [
    ['429', answer(429, { message: 'rate limited' }), true],
    ['500', answer(500, { message: 'Internal error' }), true],
    ['502', answer(502, ''), true],
    ['503', answer(503, { message: 'unavailable' }), true],
    ['a network failure', new CoderNetworkError('GET', '/x', new TypeError('fetch failed')), true],
    ['400', answer(400, { message: 'Validation failed.' }), false],
    ['401', answer(401, { message: 'no' }), false],
    ['404', answer(404, { message: 'Route not found.' }), false],
    ['409', answer(409, { message: 'conflict' }), false],
    ['501 Not Implemented', answer(501, { message: 'not implemented' }), false],
    [
      'a 500 duplicate license',
      answer(500, {
        message: 'Unable to add license to database',
        detail: 'pq: duplicate key value violates unique constraint "licenses_jwt_key"',
      }),
      false,
    ],
    ['a refused redirect', new CrossOriginRedirectError('http://a', 'http://b', 307), false],
    ['any other error', new Error('boom'), false],
  ];
  for (const [what, err, expected] of cases) {
    it(`${expected ? 'retries' : 'does not retry'} ${what}`, () => assert.equal(isRetryable(err), expected));
  }
});

describe('isRouteNotServed and routeNotServedMessage', () => {
  const cases: Array<[string, unknown, boolean]> = [
    ["a 405 with chi's empty body", answer(405, ''), true],
    ['a 404 with Coder\'s "Route not found."', answer(404, { message: 'Route not found.' }), true],
    ['a 404 about an object', answer(404, { message: 'Resource not found or you do not have access to this resource' }), false],
    ["a 404 that is not Coder's JSON (a proxy in front)", answer(404, '<html>not found</html>'), false],
    ['a 400', answer(400, { message: 'Validation failed.' }), false],
    ['a network failure', new CoderNetworkError('GET', '/x', new TypeError('fetch failed')), false],
  ];
  for (const [what, err, expected] of cases) {
    it(`${expected ? 'takes' : 'does not take'} ${what} as a call Coder does not serve`, () =>
      assert.equal(isRouteNotServed(err), expected));
  }

  it('names the call, the status and the release that answered', () => {
    const err = answer(405, '', { method: 'GET', path: '/api/v2/organizations/o/members/u', buildVersion: 'v2.26.1+abc' });
    assert.ok(err instanceof CoderApiError);
    assert.equal(
      routeNotServedMessage(err),
      'Coder v2.26.1 does not serve GET /api/v2/organizations/o/members/u (HTTP 405 Method Not Allowed)',
    );
    const routeless = answer(404, { message: 'Route not found.' }, { method: 'GET', path: '/api/v2/ai/providers' });
    assert.ok(routeless instanceof CoderApiError);
    assert.equal(routeNotServedMessage(routeless), 'Coder does not serve GET /api/v2/ai/providers (HTTP 404 Route not found)');
  });
});

describe('CoderNetworkError', () => {
  /** What fetch throws for a header value with a line break: a TypeError without a cause, quoting the whole value. */
  const headerRefusal = (value: string): TypeError => {
    try {
      new Headers({ 'Coder-Session-Token': value });
    } catch (err) {
      return err as TypeError;
    }
    throw new Error('fetch accepted the header');
  };

  it("names the socket error code fetch's TypeError wraps", () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });
    assert.equal(new CoderNetworkError('GET', '/x', refused).message, 'Coder API GET /x failed: ECONNREFUSED');
    assert.equal(new CoderNetworkError('GET', '/x', new TypeError('fetch failed')).message, 'Coder API GET /x failed: fetch failed');
  });

  it('never quotes a header value fetch refused, giving a fixed reason instead', () => {
    const refusal = headerRefusal(`${token}\nsecond-line-of-the-value`);
    assert.ok(refusal.message.includes(token), 'fetch itself quotes the value');
    const err = new CoderNetworkError('POST', '/api/v2/workspaceproxies', refusal);
    assert.equal(
      err.message,
      "Coder API POST /api/v2/workspaceproxies failed: the request failed without a socket error code (fetch's message is not shown: it may quote a request header, such as the session token)",
    );
    for (const part of [token, 'second-line-of-the-value']) assert.ok(!err.message.includes(part));
    const wrapped = new CoderNetworkError('GET', '/x', new TypeError('fetch failed', { cause: new Error(`bad header ${token}`) }));
    assert.ok(!wrapped.message.includes(token), 'nor the message of an inner error without a code');
  });
});
