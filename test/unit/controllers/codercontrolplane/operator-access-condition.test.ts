import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OperatorAccessError, type OperatorAccessReason } from '../../../../src/coder/operator-access/errors.ts';
import { accessFailed, tokenSecretWriteFailed } from '../../../../src/controllers/codercontrolplane/operator-access-condition.ts';

describe('OperatorAccessReady', () => {
  const rows: Array<[OperatorAccessReason, string]> = [
    ['Invalid', 'InvalidDatabaseURL'],
    ['Unreachable', 'Unreachable'],
    ['AuthenticationFailed', 'AuthenticationFailed'],
    ['SchemaMismatch', 'SchemaMismatch'],
    ['NoOrganization', 'NoOrganization'],
    ['UserNotCreatedByOperator', 'UserNotCreatedByOperator'],
    ['Failed', 'Failed'],
  ];
  for (const [from, reason] of rows) {
    it(`reports a bootstrap failure ${from} as False ${reason}, with its message`, () => {
      const condition = accessFailed(new OperatorAccessError(from, 'what happened: what to do'));
      assert.deepEqual(
        [condition.type, condition.status, condition.reason, condition.message],
        ['OperatorAccessReady', 'False', reason, 'Operator access: what happened: what to do.'],
      );
    });
  }

  it('never copies the message of an unexpected error, which may hold anything', () => {
    const condition = accessFailed(new Error('postgres://u:secret@db/coder'));
    assert.equal(condition.reason, 'Failed');
    assert.doesNotMatch(condition.message, /secret/);
  });

  it('names the token Secret and keeps a bounded cause when its write fails', () => {
    const condition = tokenSecretWriteFailed('ns/coder-operator-token', new Error(`denied: ${'x'.repeat(10_000)}`));
    assert.equal(condition.reason, 'TokenSecretWriteFailed');
    assert.match(condition.message, /^Writing the operator token Secret "ns\/coder-operator-token" failed, so the new token was not kept/);
    assert.ok(condition.message.length < 600, `${condition.message.length} characters`);
  });
});
