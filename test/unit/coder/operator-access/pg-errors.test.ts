import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OperatorAccessError, type OperatorAccessReason } from '../../../../src/coder/operator-access/errors.ts';
import { BackendLimitExceeded } from '../../../../src/coder/operator-access/backend-limits.ts';
import { toOperatorAccessError } from '../../../../src/coder/operator-access/pg-errors.ts';

const ctx = { step: 'connecting to PostgreSQL', connectTimeoutMs: 10_000, statementTimeoutMs: 10_000 };
// What pg, Node and the server put in their messages; none of it may reach ours.
const secrets = ['db.internal', '10.0.0.7', '5432', 'coder_owner', 'hunter2', 'AbCdEfGhIj-AbCdEfGhIjKlMnOpQrStUv'];
const leaky = `host db.internal (10.0.0.7:5432) user coder_owner password hunter2 value AbCdEfGhIj-AbCdEfGhIjKlMnOpQrStUv`;

function pgError(code: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${leaky}`), { severity: 'ERROR', code, ...extra });
}
function systemError(code: string): Error {
  return Object.assign(new Error(`connect ${code} ${leaky}`), { code, errno: -111, address: '10.0.0.7', port: 5432 });
}

describe('toOperatorAccessError', () => {
  const cases: Array<[string, unknown, OperatorAccessReason, RegExp]> = [
    ['a refused connection', systemError('ECONNREFUSED'), 'Unreachable', /refused the connection .*\(ECONNREFUSED\)/],
    ['an unknown host', systemError('ENOTFOUND'), 'Unreachable', /host name does not resolve/],
    ['an unreachable host', systemError('EHOSTUNREACH'), 'Unreachable', /unreachable/],
    ['a connect timeout', new Error('timeout expired'), 'Unreachable', /did not answer within 10 s/],
    [
      "pg's connection timeout wording",
      new Error('Connection terminated due to connection timeout'),
      'Unreachable',
      /did not answer within/,
    ],
    ['a dropped connection', new Error('Connection terminated unexpectedly'), 'Unreachable', /closed the connection/],
    ['a query read timeout', new Error('Query read timeout'), 'Unreachable', /stopped answering/],
    ['a server without TLS', new Error('The server does not support SSL connections'), 'Unreachable', /asks for TLS/],
    ['an untrusted certificate', systemError('SELF_SIGNED_CERT_IN_CHAIN'), 'Unreachable', /TLS handshake/],
    ['a wrong password', pgError('28P01'), 'AuthenticationFailed', /rejected the user name or password .*SQLSTATE 28P01/],
    ['a pg_hba refusal', pgError('28000'), 'AuthenticationFailed', /pg_hba\.conf/],
    [
      'a missing password',
      new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'),
      'AuthenticationFailed',
      /has none/,
    ],
    ['a missing database', pgError('3D000'), 'Invalid', /database named in the URL does not exist/],
    ['a missing table', pgError('42P01'), 'SchemaMismatch', /a table is missing/],
    ['a missing column', pgError('42703'), 'SchemaMismatch', /a column is missing/],
    ['a missing type', pgError('42704'), 'SchemaMismatch', /a type or enum is missing/],
    ['an unknown enum value', pgError('22P02'), 'SchemaMismatch', /enum value/],
    ['a new NOT NULL column', pgError('23502'), 'SchemaMismatch', /required column has no default/],
    [
      'a unique violation',
      pgError('23505', { constraint: 'users_email_lower_idx' }),
      'Failed',
      /unique constraint \(users_email_lower_idx\)/,
    ],
    ['a statement timeout', pgError('57014'), 'Failed', /longer than 10 s/],
    ['missing privileges', pgError('42501'), 'Failed', /lacks privileges/],
    ['a read-only standby', pgError('25006'), 'Failed', /read-only/],
    ['a server starting up', pgError('57P03'), 'Unreachable', /starting up/],
    ['another connection exception', pgError('08006'), 'Unreachable', /connection to PostgreSQL failed/],
    ['an unknown SQLSTATE', pgError('XX000'), 'Failed', /PostgreSQL returned an error/],
    [
      'a malformed URL',
      Object.assign(new TypeError('Invalid URL'), { input: 'postgres://coder_owner:hunter2@db.internal' }),
      'Invalid',
      /cannot be parsed/,
    ],
    [
      'a backend message over the limit',
      new BackendLimitExceeded('message', 1024 * 1024),
      'Failed',
      /^the database server sent a message longer than 1 MiB, so the operator disconnected while connecting/,
    ],
    [
      'a connection over its byte limit',
      new BackendLimitExceeded('connection', 4 * 1024 * 1024),
      'Failed',
      /sent more than 4 MiB on one connection/,
    ],
    ['a malformed backend message', new BackendLimitExceeded('malformed', 4), 'Failed', /sent a malformed message/],
    ['anything else', new RangeError(leaky), 'Failed', /unexpected RangeError/],
    ['a thrown string', leaky, 'Failed', /unexpected error/],
  ];
  for (const [what, err, reason, message] of cases) {
    it(`reports ${what} as ${reason} with a fixed message`, () => {
      const mapped = toOperatorAccessError(err, ctx);
      assert.ok(mapped instanceof OperatorAccessError);
      assert.equal(mapped.reason, reason);
      assert.match(mapped.message, message);
      assert.match(mapped.message, /while connecting to PostgreSQL/);
      for (const secret of secrets) assert.ok(!mapped.message.includes(secret), `${mapped.message} contains ${secret}`);
      assert.equal((mapped as { cause?: unknown }).cause, undefined, 'the original error is not kept');
    });
  }

  it('names the oldest supported Coder release in every SchemaMismatch', () => {
    for (const code of ['42P01', '42703', '42704', '42883', '42P10', '42804', '22P02', '23502', '23514', '42601']) {
      const mapped = toOperatorAccessError(pgError(code), ctx);
      assert.equal(mapped.reason, 'SchemaMismatch', code);
      assert.match(mapped.message, /a Coder older than v2\.24\.0, or much newer than the operator, also shows this$/, code);
    }
  });

  it('passes an OperatorAccessError through unchanged', () => {
    const err = new OperatorAccessError('NoOrganization', 'none');
    assert.equal(toOperatorAccessError(err, ctx), err);
  });

  it('copies a code only when it looks like one', () => {
    const mapped = toOperatorAccessError(Object.assign(new Error('x'), { code: 'hunter2 db.internal' }), ctx);
    assert.equal(mapped.code, undefined);
    assert.ok(!mapped.message.includes('hunter2'));
  });
});
