import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoderApiError } from '../../../../../src/coder/errors.ts';
import { applied, managedByAnother, syncFailed, syncRefused } from '../../../../../src/controllers/shared/coder-object/step-outcomes.ts';
import { aProvider } from '../../../../fixtures/coderaiprovider.ts';

const answered = (status: number) => new CoderApiError({ method: 'POST', path: '/api/v2/ai/providers', status, coderMessage: 'no' });

describe('the Synced outcomes of a kind kept in Coder', () => {
  it('stops a failed call with SyncFailed, and hands back a failure that may pass for the queue to back off', () => {
    const busy = syncFailed('create the provider "x"', answered(500));
    assert.equal(busy.conditions?.Synced?.reason, 'CoderAPIError');
    assert.deepEqual([busy.stop.reason, busy.stop.userMustAct], ['SyncFailed', false]);
    assert.ok(busy.error instanceof CoderApiError);
    const refused = syncFailed('create the provider "x"', answered(400));
    assert.equal(refused.conditions?.Synced?.reason, 'CoderValidationFailed');
    assert.deepEqual([refused.stop.reason, refused.stop.userMustAct, refused.error], ['SyncFailed', true, undefined]);
    assert.equal(refused.stop.message, refused.conditions?.Synced?.message);
  });

  it('stops what only the user can change with SyncFailed and the Synced reason given', () => {
    const outcome = syncRefused('AlreadyExists', 'Coder already has it.');
    assert.deepEqual(outcome, {
      conditions: { Synced: { type: 'Synced', status: 'False', reason: 'AlreadyExists', message: 'Coder already has it.' } },
      stop: { reason: 'SyncFailed', message: 'Coder already has it.', userMustAct: true },
    });
  });

  it('names the object that manages what this one would adopt, in Synced and Ready', () => {
    const holder = aProvider('corp').inNamespace('a').build();
    const outcome = managedByAnother(holder, 'The provider "corp"', 'spec.providerName');
    assert.equal(outcome.conditions?.Synced?.reason, 'ManagedByAnotherObject');
    assert.equal(outcome.stop.reason, 'ManagedByAnotherObject');
    assert.match(
      outcome.stop.message,
      /^The provider "corp" in Coder is managed by CoderAIProvider "a\/corp";.* or choose another spec\.providerName\.$/,
    );
  });

  it('reports Synced True Applied', () => {
    assert.deepEqual(applied('Coder holds it.').conditions?.Synced, {
      type: 'Synced',
      status: 'True',
      reason: 'Applied',
      message: 'Coder holds it.',
    });
  });
});
