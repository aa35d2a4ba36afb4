// A kind's steps are typed by the kind's conditions: a step can set only a condition type the kind declares,
// with one of that type's reasons, and a stop gives Ready only one of the kind's Ready reasons. The
// `@ts-expect-error` lines are the test: `npm run typecheck` fails when one of them compiles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CoderProvisionerConditions as C,
  type CoderProvisioner,
  type CoderProvisionerConditionChanges,
  type CoderProvisionerStatus,
} from '../../../../../generated/types/coderprovisioner.ts';
import type { CoderMCPServerConditionChanges, CoderMCPServerStatus } from '../../../../../generated/types/codermcpserver.ts';
import type { ProvisionerContext } from '../../../../../src/controllers/coderprovisioner/context.ts';
import type { ProvisionerOutcome } from '../../../../../src/controllers/coderprovisioner/status.ts';
import { gatewayEnabled } from '../../../../../src/controllers/shared/coder-object/coder-checks.ts';
import { syncRefused } from '../../../../../src/controllers/shared/coder-object/step-outcomes.ts';
import type { Kind } from '../../../../../src/controllers/shared/reconcile/kind.ts';
import { Outcomes } from '../../../../../src/controllers/shared/reconcile/outcome.ts';
import type { ReadyRuleOf } from '../../../../../src/controllers/shared/reconcile/readiness.ts';

type Out = Outcomes<CoderProvisionerStatus, CoderProvisionerConditionChanges>;

/** A step of CoderProvisioner as its files write one. */
function keyNameTaken(message: string): ProvisionerOutcome {
  return {
    conditions: { [C.ProvisionerKeyReady.type]: { type: C.ProvisionerKeyReady.type, status: 'False', reason: 'KeyNameTaken', message } },
    stop: true,
  };
}

function misspeltReason(message: string): ProvisionerOutcome {
  return {
    conditions: {
      // @ts-expect-error: SpecValid has no reason InvaldSpec
      [C.SpecValid.type]: { type: C.SpecValid.type, status: 'False', reason: 'InvaldSpec', message },
    },
  };
}

function reasonOfAnotherType(message: string): ProvisionerOutcome {
  return {
    conditions: {
      [C.ProvisionerKeyReady.type]: {
        type: C.ProvisionerKeyReady.type,
        status: 'False',
        // @ts-expect-error: NotEntitled is a reason of ExternalProvisionersEntitled, not of ProvisionerKeyReady
        reason: C.ExternalProvisionersEntitled.reasons.NotEntitled,
        message,
      },
    },
  };
}

function typeNotDeclared(message: string): ProvisionerOutcome {
  return {
    conditions: {
      // @ts-expect-error: CoderProvisioner declares no Synced
      Synced: { type: 'Synced', status: 'True', reason: 'Applied', message },
    },
  };
}

function conditionUnderAnotherType(message: string): ProvisionerOutcome {
  return {
    conditions: {
      // @ts-expect-error: a ControlPlaneReady condition under OperatorAccessReady
      [C.OperatorAccessReady.type]: { type: C.ControlPlaneReady.type, status: 'True', reason: 'ControlPlaneAvailable', message },
    },
  };
}

function stopWithMisspeltReason(message: string): ProvisionerOutcome {
  // @ts-expect-error: Ready has no reason KeyNameTakn
  return { stop: { reason: 'KeyNameTakn', message, userMustAct: true } };
}

function stopWithReasonOfAnotherType(message: string): ProvisionerOutcome {
  // @ts-expect-error: ObjectNotOwned is a reason of DeploymentReady; Ready says DeploymentNotReady
  return { stop: { reason: C.DeploymentReady.reasons.ObjectNotOwned, message, userMustAct: true } };
}

/** What the steps of a kind add to its Outcomes is checked the same way, whichever file built it. */
function steps(out: Out): void {
  out.add(keyNameTaken('taken'));
  out.add({
    conditions: {
      [C.DeploymentReady.type]: {
        type: C.DeploymentReady.type,
        status: 'False',
        // @ts-expect-error: a reason of SpecValid under DeploymentReady
        reason: C.SpecValid.reasons.ChildRefused,
        message: 'x',
      },
    },
  });
  // @ts-expect-error: a shared step that stops with Ready SyncFailed, a reason CoderProvisioner's Ready does not have
  out.add(syncRefused('AlreadyExists', 'x'));
}

/** A shared step adds its conditions and its stop's Ready reason only to a kind that declares them. */
async function sharedSteps(out: Outcomes<CoderMCPServerStatus, CoderMCPServerConditionChanges>, step: Parameters<typeof gatewayEnabled>) {
  out.add(syncRefused('FieldUnsupported', 'x'));
  // @ts-expect-error: the MCP server's Synced has no SecretWriteFailed (the gateway key's has)
  out.add(syncRefused('SecretWriteFailed', 'x'));
  // @ts-expect-error: the MCP server's Ready has no GatewayDisabledOnControlPlane, which this step stops with
  out.add(await gatewayEnabled(...step));
}

const rule: ReadyRuleOf<CoderProvisionerConditionChanges> = {
  requirements: [
    { type: C.SpecValid.type, reason: C.Ready.reasons.InvalidSpec, optional: true },
    // @ts-expect-error: CoderProvisioner declares no DeploymentAvailable
    { type: 'DeploymentAvailable', reason: C.Ready.reasons.DeploymentNotReady },
    // @ts-expect-error: Ready has no reason Unsupported
    { type: C.DeploymentReady.type, reason: 'Unsupported' },
  ],
  readyReason: C.Ready.reasons.Available,
  readyMessage: 'ready',
};

type ProvisionerKind = Kind<CoderProvisioner, ProvisionerContext, CoderProvisionerConditionChanges>;
const warnings: ProvisionerKind['warnings'] = {
  [C.ProvisionerKeyReady.type]: 'EnsureProvisionerKey',
  // @ts-expect-error: CoderProvisioner declares no Synced to warn of
  Synced: 'SyncProvisioner',
};

describe('step outcomes typed by the kind', () => {
  it('are plain outcomes at run time', () => {
    const out: Out = new Outcomes();
    out.add(keyNameTaken('Provisioner key "k" already exists.'));
    assert.deepEqual(out.conditions, {
      ProvisionerKeyReady: {
        type: 'ProvisionerKeyReady',
        status: 'False',
        reason: 'KeyNameTaken',
        message: 'Provisioner key "k" already exists.',
      },
    });
    assert.equal(out.stop, true);
    const unchecked = [misspeltReason, reasonOfAnotherType, typeNotDeclared, conditionUnderAnotherType, stopWithMisspeltReason];
    assert.ok([...unchecked, stopWithReasonOfAnotherType, steps, sharedSteps].every((f) => typeof f === 'function'));
    assert.deepEqual([rule.requirements.length, Object.keys(warnings)], [3, ['ProvisionerKeyReady', 'Synced']]);
  });
});
