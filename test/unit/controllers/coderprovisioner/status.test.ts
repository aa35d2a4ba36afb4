import type { V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CoderProvisioner, CoderProvisionerStatus } from '../../../../generated/types/coderprovisioner.ts';
import { provisionerReadyRule } from '../../../../src/controllers/coderprovisioner/readiness.ts';
import { provisionerWorkload } from '../../../../src/controllers/coderprovisioner/status.ts';
import { Outcomes, type AnyConditionChanges, type StepOutcome } from '../../../../src/controllers/shared/reconcile/outcome.ts';
import { nextStatus } from '../../../../src/controllers/shared/reconcile/status.ts';
import type { ConditionInput } from '../../../../src/runtime/conditions.ts';
import { aProvisioner } from '../../../fixtures/coderprovisioner.ts';

const now = new Date('2026-12-01T10:00:00Z');

/** The status the reconcile writes after a step's outcome, with what runs under it. */
function computeStatus(
  p: CoderProvisioner,
  d: V1Deployment | undefined,
  step: StepOutcome<CoderProvisionerStatus, AnyConditionChanges>,
  at: Date,
) {
  const out = new Outcomes<CoderProvisionerStatus, AnyConditionChanges>().add(step).underlay(provisionerWorkload(d));
  return nextStatus(p, out, provisionerReadyRule, at);
}
const t = (type: string, reason = type): ConditionInput => ({ type, status: 'True', reason, message: `${type} holds.` });
const f = (type: string, reason: string): ConditionInput => ({ type, status: 'False', reason, message: `${type} fails.` });
const allTrue = Object.fromEntries(
  [
    'SpecValid',
    'ControlPlaneReady',
    'OperatorAccessReady',
    'ExternalProvisionersEntitled',
    'CredentialSecretReady',
    'ProvisionerKeyReady',
    'ProvisionerKeySecretReady',
  ].map((type) => [type, t(type)]),
);
const readyDeployment: V1Deployment = {
  metadata: { name: 'provisioner-p' },
  spec: { replicas: 1, selector: {}, template: {} },
  status: { readyReplicas: 1 },
};
const line = (conditions: { type: string; status: string; reason: string }[] | undefined, type: string) => {
  const c = conditions?.find((x) => x.type === type);
  return c ? `${c.status} ${c.reason}` : 'absent';
};

describe('CoderProvisioner status and Ready', () => {
  it('is Ready (Available) with a ready pod once every condition holds, and has no Stalled', () => {
    const status = computeStatus(aProvisioner('p').build(), readyDeployment, { conditions: allTrue }, now);
    assert.equal(status.phase, 'Ready');
    assert.equal(status.readyReplicas, 1);
    assert.equal(line(status.conditions, 'DeploymentReady'), 'True MinimumReplicasReady');
    assert.equal(line(status.conditions, 'Ready'), 'True Available');
    assert.equal(line(status.conditions, 'Stalled'), 'absent');
  });

  const rows: [string, ConditionInput, string, string][] = [
    ['a bad spec', f('SpecValid', 'InvalidSpec'), 'False InvalidSpec', 'True InvalidSpec'],
    ['a missing control plane', f('ControlPlaneReady', 'ControlPlaneUnavailable'), 'False ControlPlaneNotReady', 'absent'],
    ['operator access off', f('OperatorAccessReady', 'OperatorAccessNotReady'), 'False OperatorAccessNotReady', 'absent'],
    ['no license', f('ExternalProvisionersEntitled', 'NotEntitled'), 'False NotEntitled', 'True NotEntitled'],
    ['entitlements not readable', f('ExternalProvisionersEntitled', 'EntitlementsQueryFailed'), 'False NotEntitled', 'absent'],
    [
      'an unmarked Secret',
      f('CredentialSecretReady', 'NotMarkedAsCredential'),
      'False CredentialSecretNotReady',
      'True CredentialSecretNotReady',
    ],
    ['a failed key call', f('ProvisionerKeyReady', 'ProvisionerKeyFailed'), 'False ProvisionerKeyNotReady', 'absent'],
    ["another's key of that name", f('ProvisionerKeyReady', 'KeyNameTaken'), 'False KeyNameTaken', 'True KeyNameTaken'],
    ['a foreign Deployment', f('DeploymentReady', 'ObjectNotOwned'), 'False DeploymentNotReady', 'True DeploymentNotReady'],
  ];
  for (const [name, problem, ready, stalled] of rows) {
    it(`reports ${ready} for ${name}, Stalled ${stalled}`, () => {
      const status = computeStatus(
        aProvisioner('p').build(),
        readyDeployment,
        { conditions: { ...allTrue, [problem.type]: problem } },
        now,
      );
      assert.equal(line(status.conditions, 'Ready'), ready);
      assert.equal(line(status.conditions, 'Stalled'), stalled);
    });
  }

  it('waits for a pod without calling it stalled', () => {
    const status = computeStatus(aProvisioner('p').build(), undefined, { conditions: allTrue }, now);
    assert.equal(status.phase, 'Pending');
    assert.equal(line(status.conditions, 'Ready'), 'False DeploymentNotReady');
    assert.equal(line(status.conditions, 'Stalled'), 'absent');
  });
});
