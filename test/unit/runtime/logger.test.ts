import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reconcileLogger } from '../../../src/runtime/logger.ts';
import { capturedLog } from '../../harness/captured-log.ts';

const coderToken = 'Xy12AbCd9Z-q1w2e3r4t5y6u7i8o9p0aS';
const jwt = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0.c2lnbmF0dXJlLWJ5dGVz';

describe('createLogger', () => {
  it('prints none of the secrets in one log call and keeps everything else', () => {
    const { log, output } = capturedLog();
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'coder-db-app', namespace: 'coder' },
      data: { uri: Buffer.from('postgres://coder:hunter2@db/coder').toString('base64') },
      stringData: { password: 'plain-pass-1' },
    };
    const err = new Error('dial postgresql://coder:err-pass-7@db.coder.svc:5432/coder?sslmode=disable failed');
    log.error(
      {
        err,
        url: 'postgres://app:url-pass-3@db.example.com:5432/coder',
        headers: { Authorization: 'Bearer bearer-secret-4', 'Coder-Session-Token': coderToken },
        request: 'GET /api/v2/users/me Coder-Session-Token: header-secret-5',
        secret,
        nested: { deeper: { evenDeeper: { andMore: { Password: 'deep-pass-6' } } } },
      },
      'reconcile of %s failed with token %s and Authorization: Bearer %s',
      'coder/coder',
      coderToken,
      jwt,
    );

    const text = output();
    for (const leaked of [
      'hunter2',
      Buffer.from('postgres://coder:hunter2@db/coder').toString('base64'),
      'plain-pass-1',
      'err-pass-7',
      'url-pass-3',
      'bearer-secret-4',
      coderToken,
      'header-secret-5',
      'deep-pass-6',
      jwt,
      'eyJ',
    ]) {
      assert.ok(!text.includes(leaked), `the output contains ${leaked}: ${text}`);
    }
    for (const kept of [
      'reconcile of coder/coder failed with token',
      'postgres://REDACTED@db.example.com:5432/coder',
      'postgresql://REDACTED@db.coder.svc:5432/coder?sslmode=disable',
      'coder-db-app',
      'GET /api/v2/users/me',
      '"type":"Error"',
      '"stack":"Error: dial',
      '"level":"error"',
    ]) {
      assert.ok(text.includes(kept), `the output lacks ${kept}: ${text}`);
    }
  });

  it('scrubs an Error logged on its own, message and stack', () => {
    const { log, lines } = capturedLog();
    log.error(new Error('cannot reach postgres://u:p4ssw0rd@10.0.0.1/db'));
    const [line] = lines();
    const err = line!.err as { message: string; stack: string };
    assert.equal(line!.msg, 'cannot reach postgres://REDACTED@10.0.0.1/db');
    assert.equal(err.message, 'cannot reach postgres://REDACTED@10.0.0.1/db');
    assert.ok(err.stack.startsWith('Error: cannot reach postgres://REDACTED@10.0.0.1/db\n'));
  });

  it("names the serving Secret it logs, and never prints that Secret's data, a token, a password or a database URL", () => {
    const { log, lines, output } = capturedLog();
    const tls = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'coder-k8s-apiserver-tls' }, data: { 'tls.key': 'a2V5LWJ5dGVz' } };
    log.info(
      {
        secret: { namespace: 'coder-system', name: 'coder-k8s-apiserver-tls' },
        object: tls,
        stringData: { 'tls.key': 'string-data-1' },
        token: 'token-value-2',
        password: 'password-3',
        database: 'postgres://coder:password-4@db:5432/coder',
      },
      'serving certificate reloaded',
    );
    const [line] = lines();
    assert.deepEqual(line!.secret, { namespace: 'coder-system', name: 'coder-k8s-apiserver-tls' });
    assert.equal((line!.object as { metadata: { name: string } }).metadata.name, 'coder-k8s-apiserver-tls');
    assert.doesNotMatch(output(), /a2V5LWJ5dGVz|string-data-1|token-value-2|password-3|password-4/);
  });

  it('redacts child logger bindings too', () => {
    const { log, output } = capturedLog();
    log.child({ token: 'binding-token-1', dsn: 'host=db password=binding-pass-2' }).info('started');
    assert.doesNotMatch(output(), /binding-token-1|binding-pass-2/);
    assert.match(output(), /"token":"\[REDACTED\]"/);
  });

  it('redacts sensitive keys at any depth and in any case, inside arrays too', () => {
    const { log, output } = capturedLog();
    log.info({ a: { b: { c: { d: { e: { f: [{ TOKEN: 'deep-1', connectionString: 'deep-2', name: 'kept-name' }] } } } } } });
    assert.doesNotMatch(output(), /deep-1|deep-2/);
    assert.match(output(), /kept-name/);
  });

  it('writes one JSON object per line with the level as a word and an ISO time', () => {
    const { log, lines } = capturedLog('debug');
    log.debug('first');
    log.info({ count: 2 }, 'second');
    const [first, second] = lines();
    assert.equal(first!.level, 'debug');
    assert.equal(second!.count, 2);
    assert.match(String(second!.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('logs a Buffer given as the first argument as its length, never its bytes', () => {
    const { log, output, lines } = capturedLog();
    const bytes = Buffer.from('postgres://coder:hunter2@db/coder');
    log.info(bytes);
    log.info(bytes, 'with a message');
    const text = output();
    assert.ok(!text.includes('hunter2') && !text.includes('"0":112'), text);
    const [first, second] = lines();
    assert.equal(first!.bytes, `[Buffer ${bytes.length} bytes]`);
    assert.equal(second!.msg, 'with a message');
  });

  it("hides the text Node keeps on an invalid URL's error, a password with spaces included", () => {
    const { log, output } = capturedLog();
    let err: unknown;
    try {
      new URL('postgres://coder:hun ter2@[db/coder');
    } catch (e) {
      err = e;
    }
    log.error({ err }, 'cannot parse the database URL');
    assert.ok(!output().includes('ter2'), output());
    assert.match(output(), /"code":"ERR_INVALID_URL"/);
  });

  it('drops lines below the level', () => {
    const { log, output } = capturedLog('warn');
    log.info('quiet');
    assert.equal(output(), '');
  });
});

describe('reconcileLogger', () => {
  it('puts controller, namespace, name and reconcileID on every line', () => {
    const { log, lines } = capturedLog();
    reconcileLogger(log, { controller: 'codercontrolplane', namespace: 'coder', name: 'main', reconcileID: 'r-1' }).info('reconciled');
    const [line] = lines();
    assert.deepEqual(
      { controller: line!.controller, namespace: line!.namespace, name: line!.name, reconcileID: line!.reconcileID },
      { controller: 'codercontrolplane', namespace: 'coder', name: 'main', reconcileID: 'r-1' },
    );
  });
});
