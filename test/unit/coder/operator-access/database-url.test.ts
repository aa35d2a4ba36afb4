import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureOperatorToken, OperatorAccessError, parseDatabaseURL } from '../../../../src/coder/operator-access/index.ts';

// Unroutable on purpose: should anything try to connect instead of refusing first, the test times out.
const base = 'postgres://coder_owner:hunter2@192.0.2.1:5432/coder';
const input = (postgresURL: string) => ({ postgresURL, tokenName: 'coder-k8s-operator-0000000000000000', lifetimeSeconds: 60 });

function refusesNaming(text: string, parameter: string, value: string) {
  assert.throws(
    () => parseDatabaseURL(text),
    (err: unknown) => {
      assert.ok(err instanceof OperatorAccessError);
      assert.equal(err.reason, 'Invalid');
      assert.match(err.message, new RegExp(`\\b${parameter}\\b`));
      for (const secret of [value, encodeURIComponent(value), 'hunter2', 'coder_owner', '192.0.2.1']) {
        assert.ok(!err.message.includes(secret), `the message shows ${JSON.stringify(secret)}: ${err.message}`);
      }
      return true;
    },
  );
}

describe('the database URL is parsed by the operator, never by pg', () => {
  const fileParameters = ['sslrootcert', 'sslcert', 'sslkey', 'sslcrl', 'sslcrldir', 'sslkeylogfile', 'passfile', 'service', 'servicefile'];
  for (const parameter of fileParameters) {
    it(`refuses ${parameter}, naming the parameter and never its value`, () => {
      refusesNaming(`${base}?sslmode=verify-full&${parameter}=/etc/secret-path-xyz`, parameter, '/etc/secret-path-xyz');
    });
  }

  it('refuses a Unix socket host, in the host parameter or percent-encoded', () => {
    refusesNaming(`postgres://coder_owner:hunter2@/coder?host=/var/run/postgresql`, 'host', '/var/run/postgresql');
    refusesNaming(`postgres://coder_owner:hunter2@%2Fvar%2Frun%2Fpostgresql/coder`, 'host', '/var/run/postgresql');
  });

  it('refuses a port that is not one', () => {
    refusesNaming(`${base}?port=5432x`, 'port', '5432x');
    refusesNaming(`${base}?port=70000`, 'port', '70000');
  });

  it('reads host, port, user, password and database, decoding percent-encoding', () => {
    const endpoint = parseDatabaseURL('postgresql://us%40er:p%2Fa%3Fs%23s@db.internal:6543/my%20db');
    assert.deepEqual(
      { ...endpoint },
      { host: 'db.internal', port: 6543, user: 'us@er', password: 'p/a?s#s', database: 'my db', ssl: undefined },
    );
    assert.deepEqual(parseDatabaseURL('postgres://u:p@[::1]/coder').host, '::1');
    assert.equal(parseDatabaseURL('postgres://u:p@db/coder').port, 5432);
    assert.equal(parseDatabaseURL('postgres://u:p@/coder').host, 'localhost');
    const overridden = parseDatabaseURL('postgres://u:p@db:1/coder?host=other&port=2&user=v&password=q&options=-c%20search_path%3Dcoder');
    assert.deepEqual(
      [overridden.host, overridden.port, overridden.user, overridden.password, overridden.options],
      ['other', 2, 'v', 'q', '-c search_path=coder'],
    );
  });

  const verifying = {};
  const rows: Array<[string, unknown]> = [
    ['', undefined],
    ['?sslmode=disable', false],
    ['?sslmode=allow', verifying],
    ['?sslmode=prefer', verifying],
    ['?sslmode=require', verifying],
    ['?sslmode=verify-ca', verifying],
    ['?sslmode=verify-full', verifying],
    ['?sslmode=no-verify', { rejectUnauthorized: false }],
    ['?ssl=true', true],
    ['?ssl=1', true],
    ['?ssl=0', false],
    ['?ssl=no-verify', { rejectUnauthorized: false }],
    ['?sslmode=require&uselibpqcompat=true', { rejectUnauthorized: false }],
    ['?sslmode=prefer&uselibpqcompat=true', { rejectUnauthorized: false }],
    ['?sslmode=verify-full&uselibpqcompat=true', verifying],
    ['?sslmode=disable&uselibpqcompat=true', false],
  ];
  for (const [query, ssl] of rows) {
    it(`gives pg the TLS settings its own parser gave for "${query || 'no parameters'}"`, () => {
      assert.deepEqual(parseDatabaseURL(`${base}${query}`).ssl, ssl);
    });
  }

  it('takes the certificates inline with sslinline=true, as lib/pq does', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const endpoint = parseDatabaseURL(`${base}?sslmode=verify-full&sslinline=true&sslrootcert=${encodeURIComponent(pem)}`);
    assert.deepEqual(endpoint.ssl, { ca: pem });
  });

  it('refuses an sslmode it does not know, listing the ones it does', () => {
    assert.throws(() => parseDatabaseURL(`${base}?sslmode=sometimes`), /sslmode of the database URL must be one of disable, allow, prefer/);
  });

  describe('reads no file, however the URL names one', () => {
    let dir: string;
    let fifo: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'coder-k8s-db-url-'));
      fifo = join(dir, 'ca.pem');
      execFileSync('mkfifo', [fifo]);
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('refuses sslrootcert=/dev/zero without opening it (ensureOperatorToken rejects as Invalid)', async (t) => {
      const read = t.mock.method(fs, 'readFileSync', () => {
        throw new Error('a file was read');
      });
      const open = t.mock.method(fs, 'openSync', () => {
        throw new Error('a file was opened');
      });
      for (const parameter of ['sslrootcert', 'sslcert', 'sslkey']) {
        await assert.rejects(ensureOperatorToken(input(`${base}?sslmode=require&${parameter}=/dev/zero`)), (err: unknown) => {
          assert.ok(err instanceof OperatorAccessError, String(err));
          assert.equal(err.reason, 'Invalid');
          assert.match(err.message, new RegExp(`parameter ${parameter}, which names a file`));
          assert.ok(!err.message.includes('/dev/zero'));
          return true;
        });
      }
      assert.equal(read.mock.callCount(), 0, 'readFileSync was called');
      assert.equal(open.mock.callCount(), 0, 'openSync was called');
    });

    it('answers promptly for a FIFO that nobody writes to (a read would block the process for good)', async () => {
      // In a child process, so that a blocking read hangs the child, which the deadline then kills, not this runner.
      const script = `
        import { ensureOperatorToken } from ${JSON.stringify(new URL('../../../../src/coder/operator-access/index.ts', import.meta.url).href)};
        ensureOperatorToken(${JSON.stringify(input(`${base}?sslmode=verify-full&sslrootcert=${encodeURIComponent(fifo)}`))})
          .then(() => console.log('resolved'), (err) => console.log(err.reason + ': ' + err.message));`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      const deadline = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      clearTimeout(deadline);
      assert.equal(code, 0, `the child did not finish within 30 s (killed): it blocked on the FIFO. Output: ${out}`);
      assert.match(out, /^Invalid: the database URL sets the parameter sslrootcert, which names a file/);
      assert.ok(!out.includes(fifo), 'the path is not shown');
    });
  });
});
