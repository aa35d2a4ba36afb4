import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FirstStatusHold } from '../../../../../src/controllers/shared/reconcile/first-status.ts';
import type { Condition } from '../../../../../src/runtime/conditions.ts';

const condition = (type: string, status: Condition['status']): Condition => ({
  type,
  status,
  reason: status === 'True' ? 'Fine' : 'NotYet',
  message: `${type} is ${status}.`,
  lastTransitionTime: '2026-12-01T10:00:00Z',
});

/** The first status of a control plane whose new Deployment has no ready pod yet, and nothing else wrong. */
const waitingForDeployment = [
  condition('SpecValid', 'True'),
  condition('ChildrenOwned', 'True'),
  condition('LicenseApplied', 'Unknown'),
  condition('DeploymentReady', 'False'),
  condition('Ready', 'False'),
  condition('Stalled', 'False'),
];

function holdWithClock() {
  let now = 1_000;
  const hold = new FirstStatusHold(2_000, () => now);
  return { hold, advance: (ms: number) => (now += ms) };
}

describe('FirstStatusHold', () => {
  it('holds a new object back for its span from the first reconcile, then lets it be written', () => {
    const { hold, advance } = holdWithClock();
    assert.equal(hold.holdMs('uid-1', undefined, waitingForDeployment, 'DeploymentReady'), 2_000);
    advance(500);
    assert.equal(hold.holdMs('uid-1', undefined, waitingForDeployment, 'DeploymentReady'), 1_500, 'the span counts from the first hold');
    advance(1_500);
    assert.equal(hold.holdMs('uid-1', undefined, waitingForDeployment, 'DeploymentReady'), 0);
  });

  it('never holds a status that says Ready, reports a problem, or follows one already written', () => {
    const { hold } = holdWithClock();
    const ready = waitingForDeployment.map((c) => (c.type === 'DeploymentReady' || c.type === 'Ready' ? condition(c.type, 'True') : c));
    assert.equal(hold.holdMs('uid-1', undefined, ready, 'DeploymentReady'), 0);
    const problem = [...waitingForDeployment.filter((c) => c.type !== 'ChildrenOwned'), condition('ChildrenOwned', 'False')];
    assert.equal(hold.holdMs('uid-2', undefined, problem, 'DeploymentReady'), 0);
    const stalled = [...waitingForDeployment.filter((c) => c.type !== 'Stalled'), condition('Stalled', 'True')];
    assert.equal(hold.holdMs('uid-3', undefined, stalled, 'DeploymentReady'), 0);
    assert.equal(hold.holdMs('uid-4', [condition('Ready', 'False')], waitingForDeployment, 'DeploymentReady'), 0, 'not the first status');
    assert.equal(hold.holdMs(undefined, undefined, waitingForDeployment, 'DeploymentReady'), 0, 'no UID to remember it by');
  });

  it('forgets an object held long ago (written or deleted since), so its memory stays bounded', () => {
    const { hold, advance } = holdWithClock();
    hold.holdMs('old', undefined, waitingForDeployment, 'DeploymentReady');
    advance(4_001);
    hold.holdMs('new', undefined, waitingForDeployment, 'DeploymentReady');
    assert.equal(hold.holdMs('old', undefined, waitingForDeployment, 'DeploymentReady'), 2_000, 'held afresh: the old entry was dropped');
  });
});
