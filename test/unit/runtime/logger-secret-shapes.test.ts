import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capturedLog } from '../../harness/captured-log.ts';

// Each shape as a log message and as a field value (what a Coder answer, a connection string or a
// config dump quoted in an error looks like), and the words of it that must remain.
const shapes: Array<{ what: string; text: string; secret: string; kept: string }> = [
  {
    what: 'JSON text with a "pass" key',
    text: 'Coder answered {"user":"admin","pass":"json-pass-1"}',
    secret: 'json-pass-1',
    kept: '"user":"admin"',
  },
  { what: 'a short pwd=', text: 'pwd=pw2', secret: 'pw2', kept: 'pwd=' },
  { what: 'an ODBC Pwd={…} with a ; inside', text: 'Uid=coder;Pwd={odbc;pass3};Server=db', secret: 'pass3', kept: 'Server=db' },
  {
    what: 'aws_secret_access_key = …',
    text: 'aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCY4',
    secret: 'wJalrXUtnFEMIK7MDENGbPxRfiCY4',
    kept: 'aws_secret_access_key',
  },
  { what: 'AWS_ACCESS_KEY_ID=…', text: 'env AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE set', secret: 'AKIAIOSFODNN7EXAMPLE', kept: 'set' },
  { what: 'key: …', text: 'provisioner key: pk-secret-5', secret: 'pk-secret-5', kept: 'provisioner key:' },
  { what: 'license: …', text: 'license: lic-secret-6', secret: 'lic-secret-6', kept: 'license:' },
  { what: 'ssl_key: …', text: 'ssl_key: ssl-secret-7', secret: 'ssl-secret-7', kept: 'ssl_key:' },
];

describe('log lines mask every secret shape', () => {
  for (const { what, text, secret, kept } of shapes) {
    it(`masks ${what} in the message and in a field`, () => {
      const { log, output, lines } = capturedLog();
      log.info(text);
      log.info({ detail: text, nested: { deeper: [text] } }, 'with a field');
      assert.ok(!output().includes(secret), `the log shows ${secret}:\n${output()}`);
      const [message, field] = lines();
      assert.ok(String(message!.msg).includes(kept), `the message lost "${kept}": ${String(message!.msg)}`);
      assert.ok(String(field!.detail).includes('REDACTED'), `no mark where the secret was: ${String(field!.detail)}`);
    });
  }

  it('masks an object field named key at any depth, and license, pass and ssl_key fields', () => {
    const { log, output } = capturedLog();
    log.info(
      { provisionerKey: { name: 'prod-gpu', key: 'nested-key-8' }, license: 'lic-field-9', db: { pass: 'pass-10', ssl_key: 'ssl-11' } },
      'created',
    );
    for (const secret of ['nested-key-8', 'lic-field-9', 'pass-10', 'ssl-11']) {
      assert.ok(!output().includes(secret), `the log shows ${secret}:\n${output()}`);
    }
    assert.match(output(), /"name":"prod-gpu"/);
  });

  it('keeps the key of a Secret key selector, which names a key and holds no secret', () => {
    const { log, lines } = capturedLog();
    log.info({ connectionSecretRef: { name: 'coder-db-app', key: 'uri' } }, 'resolved');
    assert.deepEqual(lines()[0]!.connectionSecretRef, { name: 'coder-db-app', key: 'uri' });
  });
});
