import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactLogValue } from '../../../src/runtime/log-redaction.ts';
import { scrubSecrets } from '../../../src/runtime/redaction.ts';

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
    ['a URL password holding an unencoded /', 'postgres://coder:pa/ss@db/coder', 'postgres://REDACTED@db/coder'],
    ['a URL password holding an unencoded ?', 'postgres://coder:pa?ss@db/coder', 'postgres://REDACTED@db/coder'],
    [
      'a URL password holding an unencoded #',
      'dial postgres://coder:pa#ss@db:5432/coder failed',
      'dial postgres://REDACTED@db:5432/coder failed',
    ],
    ['a URL password holding spaces', 'postgres://coder:pa ss word@db/coder', 'postgres://REDACTED@db/coder'],
    ['a KEY: value password', 'DB_PASSWORD: hunter2', 'DB_PASSWORD: REDACTED'],
    ['a key: value secret', 'clientSecret: abc123, next', 'clientSecret: REDACTED, next'],
    ['quoted YAML credentials', "credentials: 'a b c'", 'credentials: REDACTED'],
    ['a KEY: value token among other keys', 'user: coder\nPGPASSWORD: x1\nhost: db', 'user: coder\nPGPASSWORD: REDACTED\nhost: db'],
    ['an ordinary message', 'Secret "coder-db-app" has no key "uri"', 'Secret "coder-db-app" has no key "uri"'],
    ['a "pass" key in JSON', '{"user":"u","pass":"p1"}', '{"user":"u","pass":"REDACTED"}'],
    ['a db_pass=', 'db_pass=p2 host=db', 'db_pass=REDACTED host=db'],
    ['a pwd= shorter than 8 characters', 'pwd=p3', 'pwd=REDACTED'],
    ['an ODBC password in braces', 'Uid=u;Pwd={a;b}}c};Server=db', 'Uid=u;Pwd=REDACTED;Server=db'],
    ['an AWS secret key with spaces around =', 'aws_secret_access_key = wJalr', 'aws_secret_access_key = REDACTED'],
    ['an AWS access key id', 'AWS_ACCESS_KEY_ID=AKIAEXAMPLE', 'AWS_ACCESS_KEY_ID=REDACTED'],
    ['an ssl_key: value', 'ssl_key: k1', 'ssl_key: REDACTED'],
    [
      'a Secret name ending in -key before a colon',
      'Secret coder/prod-provisioner-key: not marked',
      'Secret coder/prod-provisioner-key: not marked',
    ],
    ['the English word pass before a colon', 'Tests pass: 3 of 3', 'Tests pass: 3 of 3'],
    ['a message with a colon', 'reconcile failed: no such key: uri', 'reconcile failed: no such key: uri'],
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

describe('redactLogValue', () => {
  it('censors sensitive keys and scrubs every string, leaving other values alone', () => {
    assert.deepEqual(redactLogValue({ n: 1, ok: true, none: null, list: ['Bearer x1y2z3'], Data: { a: 'b' }, url: 'redis://:pw@r:6379' }), {
      n: 1,
      ok: true,
      none: null,
      list: ['Bearer REDACTED'],
      Data: '[REDACTED]',
      url: 'redis://REDACTED@r:6379',
    });
  });

  it('censors keys like secret, clientSecret, credentials and DB_PASSWORD', () => {
    assert.deepEqual(
      redactLogValue({ secret: 's1', clientSecret: 's2', client_secret: 's3', credentials: { u: 'x' }, DB_PASSWORD: 's4', name: 'n' }),
      {
        secret: '[REDACTED]',
        clientSecret: '[REDACTED]',
        client_secret: '[REDACTED]',
        credentials: '[REDACTED]',
        DB_PASSWORD: '[REDACTED]',
        name: 'n',
      },
    );
  });

  it('shows a reference to a Secret under a sensitive field, as names are not secret, and hides anything more', () => {
    assert.deepEqual(
      redactLogValue({
        secret: { namespace: 'coder-system', name: 'coder-k8s-apiserver-tls' },
        credentials: { kind: 'Secret', namespace: 'ns', name: 'db-app', uid: 'u-1' },
        token: { name: 'coder-operator-token', value: 'tok-1' },
        clientSecret: { name: 7 },
      }),
      {
        secret: { namespace: 'coder-system', name: 'coder-k8s-apiserver-tls' },
        credentials: { kind: 'Secret', namespace: 'ns', name: 'db-app', uid: 'u-1' },
        token: '[REDACTED]',
        clientSecret: '[REDACTED]',
      },
    );
  });

  it("censors the input Node keeps on an invalid URL's error, whatever its shape", () => {
    let err: unknown;
    try {
      new URL('postgres://coder:hun ter2@[db/coder');
    } catch (e) {
      err = e;
    }
    const copy = redactLogValue(JSON.parse(JSON.stringify({ err: { ...(err as object), message: (err as Error).message } }))) as {
      err: { input: string; code: string };
    };
    assert.equal(copy.err.code, 'ERR_INVALID_URL');
    assert.equal(copy.err.input, '[REDACTED]');
  });
});

describe('redactLogValue for a key', () => {
  it('censors a key field, but not the key a Secret key reference names', () => {
    assert.deepEqual(redactLogValue({ created: { name: 'prod-gpu', key: 'k-1' }, keySecretRef: { name: 's', key: 'api-key' } }), {
      created: { name: 'prod-gpu', key: '[REDACTED]' },
      keySecretRef: { name: 's', key: 'api-key' },
    });
  });
});
