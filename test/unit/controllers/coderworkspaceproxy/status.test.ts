import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import type { CoderWorkspaceProxy, CoderWorkspaceProxyStatus } from '../../../../generated/types/coderworkspaceproxy.ts';
import { workspaceProxyReadyRule } from '../../../../src/controllers/coderworkspaceproxy/readiness.ts';
import { proxyWorkload } from '../../../../src/controllers/coderworkspaceproxy/status.ts';
import { Outcomes, type AnyConditionChanges, type StepOutcome } from '../../../../src/controllers/shared/reconcile/outcome.ts';
import { nextStatus } from '../../../../src/controllers/shared/reconcile/status.ts';
import type { ConditionInput } from '../../../../src/runtime/conditions.ts';
import { aWorkspaceProxy } from '../../../fixtures/coderworkspaceproxy.ts';

const now = new Date('2026-12-01T08:00:00Z');

/** The status the reconcile writes after a step's outcome, with what runs under it. */
function computeStatus(
  proxy: CoderWorkspaceProxy,
  d: V1Deployment | undefined,
  step: StepOutcome<CoderWorkspaceProxyStatus, AnyConditionChanges>,
  at: Date,
) {
  const out = new Outcomes<CoderWorkspaceProxyStatus, AnyConditionChanges>().add(step).underlay(proxyWorkload(d));
  return nextStatus(proxy, out, workspaceProxyReadyRule, at);
}
const deployment = (readyReplicas: number): V1Deployment => ({
  spec: { replicas: 1, selector: {}, template: {} },
  status: { readyReplicas },
});
const ok = (type: string, reason = 'Ok'): ConditionInput => ({ type, status: 'True', reason, message: `${type} ok` });
const bad = (type: string, reason: string): ConditionInput => ({ type, status: 'False', reason, message: `${type} says no` });
const line = (status: ReturnType<typeof computeStatus>, type: string) => {
  const c = status.conditions?.find((x) => x.type === type);
  return c ? `${c.status} ${c.reason}` : 'absent';
};

describe('the workspace proxy status', () => {
  const proxy = aWorkspaceProxy('eu-west').withControlPlane().build();
  const allOk = {
    SpecValid: ok('SpecValid'),
    CredentialSecretReady: ok('CredentialSecretReady'),
    ControlPlaneReady: ok('ControlPlaneReady'),
    OperatorAccessReady: ok('OperatorAccessReady'),
    ProxyRegistered: ok('ProxyRegistered'),
    ChildrenOwned: ok('ChildrenOwned'),
  };

  it('is Ready and Available with a ready pod and every condition True, without Stalled', () => {
    const status = computeStatus(proxy, deployment(1), { conditions: allOk, status: { registered: true } }, now);
    assert.equal(status.phase, 'Ready');
    assert.equal(status.readyReplicas, 1);
    assert.equal(status.registered, true);
    assert.equal(line(status, 'DeploymentReady'), 'True MinimumReplicasReady');
    assert.equal(line(status, 'Ready'), 'True Available');
    assert.equal(line(status, 'Stalled'), 'absent');
  });

  const rows: { what: string; change: Record<string, ConditionInput>; ready: string; stalled: string }[] = [
    {
      what: 'a refused Secret',
      change: { CredentialSecretReady: bad('CredentialSecretReady', 'NotMarkedAsCredential') },
      ready: 'False CredentialSecretNotReady',
      stalled: 'True CredentialSecretNotReady',
    },
    {
      what: 'no operator access',
      change: { OperatorAccessReady: bad('OperatorAccessReady', 'OperatorAccessNotReady') },
      ready: 'False OperatorAccessNotReady',
      stalled: 'absent',
    },
    {
      what: 'a missing control plane',
      change: { ControlPlaneReady: bad('ControlPlaneReady', 'ControlPlaneUnavailable') },
      ready: 'False ControlPlaneNotReady',
      stalled: 'absent',
    },
    {
      what: 'a failed registration',
      change: { ProxyRegistered: bad('ProxyRegistered', 'RegistrationFailed') },
      ready: 'False NotRegistered',
      stalled: 'absent',
    },
    {
      what: 'a foreign Deployment',
      change: { ChildrenOwned: bad('ChildrenOwned', 'ObjectNotOwned') },
      ready: 'False ChildrenNotOwned',
      stalled: 'True ChildrenNotOwned',
    },
  ];
  for (const row of rows) {
    it(`is not Ready with ${row.what} (Stalled: ${row.stalled})`, () => {
      const status = computeStatus(proxy, deployment(1), { conditions: { ...allOk, ...row.change } }, now);
      assert.equal(line(status, 'Ready'), row.ready);
      assert.equal(line(status, 'Stalled'), row.stalled);
    });
  }

  it('waits for a ready pod, and names the missing Deployment', () => {
    const none = computeStatus(proxy, undefined, { conditions: allOk }, now);
    assert.equal(none.phase, 'Pending');
    assert.equal(line(none, 'Ready'), 'False DeploymentNotReady');
    assert.match(none.conditions!.find((c) => c.type === 'DeploymentReady')!.message, /not applied/);
    assert.equal(line(computeStatus(proxy, deployment(0), { conditions: allOk }, now), 'Ready'), 'False DeploymentNotReady');
  });
});
