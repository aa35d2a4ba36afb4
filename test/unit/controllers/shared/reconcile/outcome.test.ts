import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Outcomes, type AnyConditionChanges, type StepOutcome } from '../../../../../src/controllers/shared/reconcile/outcome.ts';

type Status = { phase?: string; readyReplicas?: number; url?: string };

const condition = (type: string, status: 'True' | 'False', reason: string) => ({ type, status, reason, message: `${type} ${reason}.` });

describe('Outcomes', () => {
  it('lets later steps win on a condition type or status field, and keeps the soonest requeue', () => {
    const out = new Outcomes<Status, AnyConditionChanges>()
      .add({ conditions: { A: condition('A', 'False', 'Early') }, status: { phase: 'Pending' }, requeueAfterMs: 60_000 })
      .add({ conditions: { A: condition('A', 'True', 'Late'), B: undefined }, status: { phase: 'Ready' }, requeueAfterMs: 5_000 })
      .add({ requeueAfterMs: 0 });
    assert.deepEqual(out.conditions, { A: condition('A', 'True', 'Late'), B: undefined });
    assert.deepEqual(out.status, { phase: 'Ready' });
    assert.deepEqual(out.result(), { requeueAfterMs: 5_000 });
  });

  it('asks for nothing when no step set a delay', () => {
    assert.equal(new Outcomes<Status, AnyConditionChanges>().add({ status: { phase: 'Ready' } }).result(), undefined);
  });

  it('tells a step that stops from one that goes on, and narrows to the going-on variant', () => {
    type Access =
      | (StepOutcome<Status, AnyConditionChanges> & { stop: true })
      | (StepOutcome<Status, AnyConditionChanges> & { stop?: undefined; url: string });
    const resolve = (usable: boolean): Access =>
      usable ? { url: 'http://coder' } : { stop: true, conditions: { A: condition('A', 'False', 'Missing') } };
    const out = new Outcomes<Status, AnyConditionChanges>();
    const usable = resolve(true);
    if (out.stopsAt(usable)) assert.fail('a usable access does not stop');
    else assert.equal(usable.url, 'http://coder');
    assert.equal(out.stop, undefined);
    assert.equal(out.stopsAt(resolve(false)), true);
    assert.equal(out.stop, true);
  });

  it('keeps a stop with its own reason, the request that only conditions change, and a transient error', () => {
    const error = new Error('Coder did not answer');
    const out = new Outcomes<Status, AnyConditionChanges>().add({
      stop: { reason: 'SyncFailed', message: 'Coder did not answer.', userMustAct: false },
      conditionsOnly: true,
      error,
    });
    assert.deepEqual(out.stop, { reason: 'SyncFailed', message: 'Coder did not answer.', userMustAct: false });
    assert.equal(out.conditionsOnly, true);
    assert.equal(out.error, error);
  });

  it('underlays what runs: it fills only what no step decided', () => {
    const out = new Outcomes<Status, AnyConditionChanges>()
      .add({ conditions: { DeploymentReady: condition('DeploymentReady', 'False', 'ObjectNotOwned') } })
      .underlay({
        status: { readyReplicas: 0, phase: 'Pending' },
        conditions: { DeploymentReady: condition('DeploymentReady', 'False', 'NoReplicasReady') },
      });
    assert.equal(out.conditions.DeploymentReady?.reason, 'ObjectNotOwned');
    assert.deepEqual(out.status, { readyReplicas: 0, phase: 'Pending' });
  });

  it('stays durable once a step recorded what it made outside the cluster, whatever the later steps add', () => {
    const out = new Outcomes<{ id?: string }, AnyConditionChanges>();
    out.add({ status: { id: 'a' } });
    assert.equal(out.durable, false);
    out.add({ status: { id: 'b' }, durable: true }).add({ error: new Error('later') });
    assert.equal(out.durable, true);
    assert.deepEqual(out.status, { id: 'b' });
  });
});
