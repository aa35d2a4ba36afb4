import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactDeep, scrubSecrets } from '../../../src/runtime/redaction.ts';

describe('scrubSecrets', () => {
  const cases: Array<[string, string, string]> = [
    ['a postgres URL with credentials', 'postgres://coder:s3cret@db:5432/coder', 'postgres://REDACTED@db:5432/coder'],
    ['a postgresql URL whose password holds an @', 'postgresql://coder:p@ss@db/coder', 'postgresql://REDACTED@db/coder'],
    ['any scheme', 'see https://user:pw@git.example.com/repo.git now', 'see https://REDACTED@git.example.com/repo.git now'],
    ['a URL without credentials', 'https://coder.example.com/api/v2', 'https://coder.example.com/api/v2'],
    ['a Bearer token', 'Bearer abc.DEF-123_x=', 'Bearer REDACTED'],
    ['an Authorization header', 'Authorization: Basic dXNlcjpwYXNz', 'Authorization: REDACTED'],
    ['a Coder-Session-Token header', 'Coder-Session-Token: AbCdEfGhIj-AbCdEfGhIjKlMnOpQrStUv', 'Coder-Session-Token: REDACTED'],
    ['a coder_session_token query parameter', '/api?coder_session_token=xyz&x=1', '/api?coder_session_token=REDACTED&x=1'],
    ['a bare Coder API token', 'token AbCdEfGhIj-AbCdEfGhIjKlMnOpQrStUv issued', 'token REDACTED issued'],
    ['a JWT', 'sa eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln end', 'sa REDACTED end'],
    [
      'a password in a query string',
      'postgres://db/coder?user=coder&password=pw1&sslmode=require',
      'postgres://db/coder?user=coder&password=REDACTED&sslmode=require',
    ],
    ['a libpq keyword string', "host=db user=coder password='a b' dbname=coder", 'host=db user=coder password=REDACTED dbname=coder'],
    ['JSON in a message', 'body: {"token":"t-1","name":"n"}', 'body: {"token":"REDACTED","name":"n"}'],
    ['a private key', 'key -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- done', 'key REDACTED done'],
    ['an ordinary message', 'Secret "coder-db-app" has no key "uri"', 'Secret "coder-db-app" has no key "uri"'],
    ['a Kubernetes name with hyphens', 'pod coder-7d9f8c6b5-x2k4p is ready', 'pod coder-7d9f8c6b5-x2k4p is ready'],
  ];
  for (const [what, input, expected] of cases) {
    it(`redacts ${what}`, () => assert.equal(scrubSecrets(input), expected));
  }

  it('stays fast on a long string with many near misses', () => {
    const text = 'a-b=c '.repeat(20_000) + 'password'.repeat(5_000);
    const start = performance.now();
    scrubSecrets(text);
    assert.ok(performance.now() - start < 500, 'scrubbing took more than 500 ms');
  });
});

describe('redactDeep', () => {
  it('censors sensitive keys and scrubs every string, leaving other values alone', () => {
    assert.deepEqual(redactDeep({ n: 1, ok: true, none: null, list: ['Bearer x1y2z3'], Data: { a: 'b' }, url: 'redis://:pw@r:6379' }), {
      n: 1,
      ok: true,
      none: null,
      list: ['Bearer REDACTED'],
      Data: '[REDACTED]',
      url: 'redis://REDACTED@r:6379',
    });
  });
});
