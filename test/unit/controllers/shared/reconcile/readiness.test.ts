import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../../../../src/runtime/conditions.ts';
import { readinessChanges, specOrCredentialProblem, type ReadyRule } from '../../../../../src/controllers/shared/reconcile/readiness.ts';

const condition = (type: string, status: Condition['status'], reason = 'Some', message = `${type} says so.`): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-12-01T10:00:00Z',
});

const rule: ReadyRule = {
  requirements: [
    { type: 'SpecValid', reason: 'InvalidSpec', optional: true },
    { type: 'CredentialSecretReady', reason: 'CredentialSecretNotReady', optional: true },
    { type: 'DeploymentReady', reason: 'DeploymentNotReady' },
  ],
  readyReason: 'Available',
  readyMessage: 'All there.',
  userMustAct: specOrCredentialProblem,
};

describe('readinessChanges', () => {
  it('is Ready once every requirement is True, skipping optional ones that are not reported, and removes Stalled', () => {
    const changes = readinessChanges([condition('DeploymentReady', 'True')], rule);
    assert.deepEqual(changes, {
      Ready: { type: 'Ready', status: 'True', reason: 'Available', message: 'All there.' },
      Stalled: undefined,
    });
  });

  it('waits for a required condition that is not reported yet, without Stalled', () => {
    const changes = readinessChanges([], rule);
    assert.deepEqual(changes.Ready, {
      type: 'Ready',
      status: 'False',
      reason: 'DeploymentNotReady',
      message: 'Waiting for DeploymentReady to be reported.',
    });
    assert.equal(changes.Stalled, undefined);
  });

  it('reports the first blocking condition in rule order, with its reason and message', () => {
    const conditions = [
      condition('DeploymentReady', 'False', 'NoReplicasReady'),
      condition('CredentialSecretReady', 'False', 'NotMarkedAsCredential', 'Secret "s" lacks the label.'),
    ];
    const changes = readinessChanges(conditions, rule);
    assert.equal(changes.Ready.reason, 'CredentialSecretNotReady');
    assert.equal(changes.Ready.message, 'CredentialSecretReady is False (NotMarkedAsCredential): Secret "s" lacks the label.');
    assert.deepEqual(changes.Stalled, { ...changes.Ready, type: 'Stalled', status: 'True' });
  });

  it('is progressing, not stalled, while the blocking condition resolves by itself', () => {
    const changes = readinessChanges([condition('DeploymentReady', 'False', 'NoReplicasReady')], rule);
    assert.equal(changes.Ready.status, 'False');
    assert.equal(changes.Stalled, undefined);
  });

  it("gives Ready the reason the rule maps the blocking condition's reason to, and the requirement's otherwise", () => {
    const mapped: ReadyRule = {
      ...rule,
      requirements: [{ type: 'DeploymentReady', reason: 'DeploymentNotReady', reasonsByCause: { ObjectNotOwned: 'NameTaken' } }],
    };
    assert.equal(readinessChanges([condition('DeploymentReady', 'False', 'ObjectNotOwned')], mapped).Ready.reason, 'NameTaken');
    assert.equal(readinessChanges([condition('DeploymentReady', 'False', 'NoReplicasReady')], mapped).Ready.reason, 'DeploymentNotReady');
  });

  it('treats Unknown like False', () => {
    assert.equal(
      readinessChanges([condition('SpecValid', 'Unknown'), condition('DeploymentReady', 'True')], rule).Ready.reason,
      'InvalidSpec',
    );
  });

  it('never sets Stalled for a kind without a user-must-act rule', () => {
    const changes = readinessChanges([condition('SpecValid', 'False')], { ...rule, userMustAct: undefined });
    assert.equal(changes.Ready.reason, 'InvalidSpec');
    assert.equal('Stalled' in changes, false);
  });

  it('says what a step stopped on in its own words, Stalled only when the user must act', () => {
    const conditions = [condition('DeploymentReady', 'True')];
    const waiting = readinessChanges(conditions, rule, { reason: 'ControlPlaneNotReady', message: 'Not yet.', userMustAct: false });
    assert.deepEqual(waiting, {
      Ready: { type: 'Ready', status: 'False', reason: 'ControlPlaneNotReady', message: 'Not yet.' },
      Stalled: undefined,
    });
    const stuck = readinessChanges(conditions, rule, { reason: 'InvalidSpec', message: 'spec.x: wrong.', userMustAct: true });
    assert.deepEqual(stuck.Stalled, { type: 'Stalled', status: 'True', reason: 'InvalidSpec', message: 'spec.x: wrong.' });
    const { userMustAct: _, ...withoutStalled } = rule;
    assert.deepEqual(Object.keys(readinessChanges(conditions, withoutStalled, { reason: 'X', message: 'x', userMustAct: true })), [
      'Ready',
    ]);
  });

  it("gives Ready True the step's own message where it has one, and the rule's otherwise", () => {
    const conditions = [condition('DeploymentReady', 'True')];
    assert.equal(
      readinessChanges(conditions, rule, undefined, 'Passed: every agent was ready.').Ready.message,
      'Passed: every agent was ready.',
    );
    assert.equal(readinessChanges(conditions, rule).Ready.message, 'All there.');
    assert.equal(readinessChanges([], rule, undefined, 'Passed.').Ready.message, 'Waiting for DeploymentReady to be reported.');
  });

  it("writes Stalled False with Ready's reason and message instead of removing it when the rule says so, even without a user-must-act rule", () => {
    const steps: ReadyRule = { requirements: [], readyReason: 'Succeeded', readyMessage: 'Done.', stalledWhenClear: 'False' };
    const waiting = readinessChanges([], steps, { reason: 'Waiting', message: 'Still waiting.', userMustAct: false });
    assert.deepEqual(waiting.Stalled, { type: 'Stalled', status: 'False', reason: 'Waiting', message: 'Still waiting.' });
    const failed = readinessChanges([], steps, { reason: 'Broken', message: 'It broke.', userMustAct: true });
    assert.deepEqual(failed.Stalled, { type: 'Stalled', status: 'True', reason: 'Broken', message: 'It broke.' });
    assert.deepEqual(readinessChanges([], steps).Stalled, { type: 'Stalled', status: 'False', reason: 'Succeeded', message: 'Done.' });
    const fromConditions = readinessChanges([condition('DeploymentReady', 'False', 'NoReplicasReady')], {
      ...rule,
      stalledWhenClear: 'False',
    });
    assert.equal(fromConditions.Stalled?.status, 'False');
    assert.equal(fromConditions.Stalled?.reason, 'DeploymentNotReady');
  });

  it("sets Reconciling, when the rule asks for it, True while neither Ready nor Stalled and False otherwise, in Ready's words", () => {
    const reconciling: ReadyRule = { ...rule, reconciling: true };
    const progressing = readinessChanges([condition('DeploymentReady', 'False', 'NoReplicasReady')], reconciling);
    assert.deepEqual(progressing.Reconciling, { ...progressing.Ready, type: 'Reconciling', status: 'True' });
    const stalled = readinessChanges([], reconciling, { reason: 'Broken', message: 'It broke.', userMustAct: true });
    assert.deepEqual(stalled.Reconciling, { type: 'Reconciling', status: 'False', reason: 'Broken', message: 'It broke.' });
    const ready = readinessChanges([condition('DeploymentReady', 'True')], reconciling);
    assert.deepEqual(ready.Reconciling, { type: 'Reconciling', status: 'False', reason: 'Available', message: 'All there.' });
    assert.equal('Reconciling' in readinessChanges([], rule), false);
  });
});
