import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ensureOperatorToken, OperatorAccessError, revokeOperatorToken } from '../../../../src/coder/operator-access/index.ts';

// A URL that would hang if anything tried to connect: validation must fail first.
const unroutable = 'postgres://coder_owner:hunter2@192.0.2.1:5432/coder';
const valid = { postgresURL: unroutable, tokenName: 'coder-k8s-operator-0000000000000000', lifetimeSeconds: 60 };

function rejectsInvalid(promise: Promise<unknown>, message: RegExp) {
  return assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof OperatorAccessError);
    assert.equal(err.reason, 'Invalid');
    assert.match(err.message, message);
    assert.ok(!err.message.includes('hunter2') && !err.message.includes('coder_owner') && !err.message.includes('192.0.2.1'));
    return true;
  });
}

describe('operator-access input checks, made before connecting', () => {
  const cases: Array<[string, Partial<typeof valid>, RegExp]> = [
    ['an empty URL', { postgresURL: '' }, /URL is empty/],
    ['a blank URL', { postgresURL: ' \n\t' }, /URL is empty/],
    ['a URL that is not one', { postgresURL: 'host=db user=coder_owner password=hunter2' }, /cannot be parsed/],
    ['another scheme', { postgresURL: 'mysql://coder_owner:hunter2@192.0.2.1/coder' }, /postgres:\/\/ or postgresql:\/\//],
    ['an http URL', { postgresURL: 'http://coder_owner:hunter2@192.0.2.1/' }, /does not start/],
    ['a blank token name', { tokenName: '  ' }, /token name is empty/],
    ['a zero lifetime', { lifetimeSeconds: 0 }, /lifetime/],
    ['a negative lifetime', { lifetimeSeconds: -1 }, /lifetime/],
    ['a fractional lifetime', { lifetimeSeconds: 1.5 }, /lifetime/],
    ['a NaN lifetime', { lifetimeSeconds: Number.NaN }, /lifetime/],
  ];
  for (const [what, override, message] of cases) {
    it(`refuses ${what} as Invalid`, () => rejectsInvalid(ensureOperatorToken({ ...valid, ...override }), message));
  }

  it('refuses a zero timeout', () => rejectsInvalid(ensureOperatorToken({ ...valid, timeouts: { connectMs: 0 } }), /connectMs timeout/));

  it('checks the revoke input too', async () => {
    await rejectsInvalid(revokeOperatorToken({ postgresURL: '', tokenName: 'x' }), /URL is empty/);
    await rejectsInvalid(revokeOperatorToken({ postgresURL: unroutable, tokenName: '' }), /token name is empty/);
  });
});
