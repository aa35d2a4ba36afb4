import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { availableRule } from '../../../../../src/controllers/shared/coder-object/kind.ts';
import { Outcomes, type AnyConditionChanges } from '../../../../../src/controllers/shared/reconcile/outcome.ts';
import { nextStatus } from '../../../../../src/controllers/shared/reconcile/status.ts';
import type { Condition } from '../../../../../src/runtime/conditions.ts';

const rule = availableRule('The provider is in Coder as spec describes.');
const now = new Date('2026-12-01T10:00:00Z');
const summary = (conditions: Condition[], out: Outcomes<{ conditions?: Condition[] }, AnyConditionChanges>) => {
  const next = nextStatus({ metadata: { generation: 2 }, status: { conditions } }, out, rule, now).conditions ?? [];
  return next.filter((c) => c.type === 'Ready' || c.type === 'Stalled').map((c) => `${c.type} ${c.status} ${c.reason}: ${c.message}`);
};
const stalled: Condition = {
  type: 'Stalled',
  status: 'True',
  reason: 'SyncFailed',
  message: 'Coder refused.',
  lastTransitionTime: '2026-11-01T10:00:00Z',
};

describe('Ready and Stalled of a kind kept in Coder', () => {
  it('is Available once no step stopped, whatever else the conditions say, and removes Stalled', () => {
    const out = new Outcomes<{ conditions?: Condition[] }, AnyConditionChanges>().add({
      conditions: { Connected: { type: 'Connected', status: 'False', reason: 'NeverUsed', message: 'No gateway yet.' } },
    });
    assert.deepEqual(summary([stalled], out), ['Ready True Available: The provider is in Coder as spec describes.']);
  });

  it('says the reason and message of the step that stopped, with Stalled True when only the user can act', () => {
    const out = new Outcomes<{ conditions?: Condition[] }, AnyConditionChanges>().add({
      stop: { reason: 'CredentialSecretNotReady', message: 'Secret "k" does not exist.', userMustAct: true },
    });
    assert.deepEqual(summary([], out), [
      'Ready False CredentialSecretNotReady: Secret "k" does not exist.',
      'Stalled True CredentialSecretNotReady: Secret "k" does not exist.',
    ]);
  });

  it('removes Stalled while the stop passes on its own', () => {
    const out = new Outcomes<{ conditions?: Condition[] }, AnyConditionChanges>().add({
      stop: { reason: 'ControlPlaneNotReady', message: 'No operator access.', userMustAct: false },
    });
    assert.deepEqual(summary([stalled], out), ['Ready False ControlPlaneNotReady: No operator access.']);
  });
});
