import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import type { CoderControlPlane, CoderControlPlaneStatus } from '../../../../generated/types/codercontrolplane.ts';
import { controlPlaneReadyRule } from '../../../../src/controllers/codercontrolplane/readiness.ts';
import { controlPlaneWorkload } from '../../../../src/controllers/codercontrolplane/status.ts';
import { Outcomes, type AnyConditionChanges, type StepOutcome } from '../../../../src/controllers/shared/reconcile/outcome.ts';
import { nextStatus } from '../../../../src/controllers/shared/reconcile/status.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';

const now = new Date('2026-12-01T10:00:00Z');
const deployment = (readyReplicas?: number) => ({ spec: { replicas: 2 }, status: { readyReplicas } }) as V1Deployment;
const exposed = { type: 'Exposed', status: 'True' as const, reason: 'IngressApplied', message: 'Ingress "coder" is applied.' };

/** The status the reconcile writes after a step's outcome, with what runs under it. */
function computeStatus(cp: CoderControlPlane, d: V1Deployment, step: StepOutcome<CoderControlPlaneStatus, AnyConditionChanges>, at: Date) {
  const out = new Outcomes<CoderControlPlaneStatus, AnyConditionChanges>().add(step).underlay(controlPlaneWorkload(cp, d));
  return nextStatus(cp, out, controlPlaneReadyRule, at);
}

describe('the control plane status', () => {
  it('is Ready with the ready replicas, the Service URL and the observed generation once a replica is ready', () => {
    const cp = aControlPlane('coder').inNamespace('coder').build();
    cp.metadata.generation = 3;
    const status = computeStatus(cp, deployment(2), { conditions: { Exposed: exposed }, status: { operatorAccessReady: true } }, now);
    assert.equal(status.phase, 'Ready');
    assert.equal(status.readyReplicas, 2);
    assert.equal(status.observedGeneration, 3);
    assert.equal(status.url, 'http://coder.coder.svc.cluster.local:80');
    assert.equal(status.operatorAccessReady, true);
    const stamp = { observedGeneration: 3, lastTransitionTime: '2026-12-01T10:00:00Z' };
    assert.deepEqual(status.conditions, [
      { ...exposed, ...stamp },
      { type: 'DeploymentReady', status: 'True', reason: 'MinimumReplicasReady', message: '2 of 2 Coder pods are ready.', ...stamp },
      {
        type: 'Ready',
        status: 'True',
        reason: 'Available',
        message: 'Coder serves, and everything the spec asks for is in place.',
        ...stamp,
      },
    ]);
  });

  it('is Pending without a ready replica, and removes a condition a step maps to undefined', () => {
    const cp = aControlPlane('coder')
      .inNamespace('coder')
      .withStatus({
        conditions: [{ ...exposed, observedGeneration: 1, lastTransitionTime: '2026-11-30T10:00:00Z' }],
      })
      .build();
    const status = computeStatus(cp, deployment(undefined), { conditions: { Exposed: undefined } }, now);
    assert.equal(status.phase, 'Pending');
    assert.equal(status.readyReplicas, 0);
    assert.deepEqual(
      status.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ['DeploymentReady', 'False', 'NoReplicasReady'],
        ['Ready', 'False', 'DeploymentNotReady'],
      ],
    );
  });

  it('keeps lastTransitionTime while a condition keeps its status', () => {
    const cp = aControlPlane('coder')
      .inNamespace('coder')
      .withStatus({
        conditions: [{ ...exposed, observedGeneration: 1, lastTransitionTime: '2026-11-30T10:00:00Z' }],
      })
      .build();
    const status = computeStatus(cp, deployment(1), { conditions: { Exposed: { ...exposed, message: 'again' } } }, now);
    assert.equal(status.conditions?.[0]?.lastTransitionTime, '2026-11-30T10:00:00Z');
    assert.equal(status.conditions?.[0]?.message, 'again');
  });
});
