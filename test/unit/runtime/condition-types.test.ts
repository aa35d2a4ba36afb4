// The literal condition types: a condition built for a type carries only that type's reasons. The
// `@ts-expect-error` lines are the test: `npm run typecheck` fails when one of them compiles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConditionChanges, ConditionInput, ConditionOf, ConditionWith } from '../../../src/runtime/conditions.ts';
import { SyncedCondition } from '../../../generated/types/conditions.ts';
import {
  CoderProvisionerConditions as C,
  type CoderProvisionerCondition,
  type CoderProvisionerConditionChanges,
} from '../../../generated/types/coderprovisioner.ts';
import { CoderAIProviderConditions } from '../../../generated/types/coderaiprovider.ts';

type KeyReady = ConditionOf<typeof C.ProvisionerKeyReady>;

const keyReady: KeyReady = {
  type: C.ProvisionerKeyReady.type,
  status: 'False',
  reason: C.ProvisionerKeyReady.reasons.KeyNameTaken,
  message: 'taken',
};

const misspelt: KeyReady = {
  type: 'ProvisionerKeyReady',
  status: 'False',
  // @ts-expect-error: no such reason
  reason: 'KeyNameTakn',
  message: 'x',
};

const ofAnotherType: KeyReady = {
  type: 'ProvisionerKeyReady',
  status: 'False',
  // @ts-expect-error: a reason of SpecValid, not of ProvisionerKeyReady
  reason: C.SpecValid.reasons.ChildRefused,
  message: 'x',
};

const wrongType: KeyReady = {
  // @ts-expect-error: the type is ProvisionerKeyReady
  type: C.SpecValid.type,
  status: 'True',
  reason: 'ProvisionerKeyReady',
  message: 'x',
};

const changes: CoderProvisionerConditionChanges = {
  [C.SpecValid.type]: { type: C.SpecValid.type, status: 'True', reason: C.SpecValid.reasons.Valid, message: 'ok' },
  [C.DeploymentReady.type]: undefined,
};

const changeOfAnotherType: CoderProvisionerConditionChanges = {
  // @ts-expect-error: a DeploymentReady reason under SpecValid
  [C.SpecValid.type]: { type: C.SpecValid.type, status: 'False', reason: C.DeploymentReady.reasons.ObjectNotOwned, message: 'x' },
};

const unknownType: CoderProvisionerConditionChanges = {
  // @ts-expect-error: CoderProvisioner declares no Synced
  Synced: { type: 'Synced', status: 'True', reason: 'Applied', message: 'x' },
};

/** Any condition of the kind: the union narrows by type. */
function reasonOf(condition: CoderProvisionerCondition): string {
  if (condition.type === 'ProvisionerKeySecretReady') {
    const only: 'SecretReady' = condition.reason;
    return only;
  }
  return condition.reason;
}

// A kind's own reason of a shared set is not a reason of the set.
type SharedSynced = ConditionOf<typeof SyncedCondition>;
const providerSynced: ConditionOf<typeof CoderAIProviderConditions.Synced> = {
  type: 'Synced',
  status: 'False',
  reason: CoderAIProviderConditions.Synced.reasons.ImmutableFieldConflict,
  message: 'x',
};
// @ts-expect-error: ImmutableFieldConflict is CoderAIProvider's, not the shared Synced's
const sharedSynced: SharedSynced = providerSynced;

// A builder that decides only some reasons of a type says so; ConditionOf of the type takes what it builds.
const valid: ConditionWith<typeof C.SpecValid.type, typeof C.SpecValid.reasons.Valid> = {
  type: 'SpecValid',
  status: 'True',
  reason: 'Valid',
  message: 'ok',
};
const specValid: ConditionOf<typeof C.SpecValid> = valid;
const onlyValid: ConditionWith<typeof C.SpecValid.type, typeof C.SpecValid.reasons.Valid> = {
  type: 'SpecValid',
  status: 'False',
  // @ts-expect-error: this builder gives only Valid
  reason: C.SpecValid.reasons.InvalidSpec,
  message: 'x',
};

// What the typed conditions are handed to: the untyped input of setCondition and of the skeleton's status
// machinery (AnyConditionChanges in shared/reconcile/outcome.ts).
const asInput: ConditionInput = keyReady;
const asStepChanges: Record<string, ConditionInput | undefined> = changes;
const generic: ConditionChanges<typeof C> = changes;

describe('literal condition types', () => {
  it('are plain conditions at run time', () => {
    assert.deepEqual(asInput, { type: 'ProvisionerKeyReady', status: 'False', reason: 'KeyNameTaken', message: 'taken' });
    assert.equal(reasonOf(keyReady), 'KeyNameTaken');
    assert.equal(asStepChanges.SpecValid?.reason, 'Valid');
    assert.equal(generic, changes);
    assert.ok(
      [misspelt, ofAnotherType, wrongType, changeOfAnotherType, unknownType, sharedSynced, specValid, onlyValid].every(
        (c) => typeof c === 'object',
      ),
    );
  });
});
