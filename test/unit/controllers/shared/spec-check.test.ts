// Which schema errors stop a reconcile, and how the tolerated ones are reported.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateCoderControlPlane } from '../../../../generated/validators/codercontrolplane.ts';
import { partitionSchemaErrors, specValidCondition } from '../../../../src/controllers/shared/spec-check.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';

function recorder() {
  const notes: string[] = [];
  return {
    notes,
    events: {
      record: async (_t: unknown, type: string, reason: string, _a: string, note: string) => void notes.push(`${type} ${reason}: ${note}`),
    },
  };
}

describe('partitionSchemaErrors', () => {
  it('tolerates what the API server ratchets: patterns, bounds, rules', () => {
    const cp = aControlPlane('coder')
      .withRawSpec({
        resources: { limits: { cpu: '1 GB' } },
        expose: { ingress: { host: 'a' }, gateway: { host: 'a', parentRefs: [{ name: 'g' }] } },
      })
      .build();
    const { blocking, tolerated } = partitionSchemaErrors(validateCoderControlPlane(cp));
    assert.deepEqual(blocking, []);
    assert.deepEqual(
      tolerated.map((e) => e.path),
      ['spec.resources.limits.cpu', 'spec.expose'],
    );
  });

  it('tolerates a string that breaks its format, which the API server also reports as a type error', () => {
    const cp = aControlPlane('coder')
      .withRawSpec({ templateTests: { ownerUserID: 'not-a-uuid' } })
      .build();
    const { blocking, tolerated } = partitionSchemaErrors(validateCoderControlPlane(cp));
    assert.deepEqual(blocking, []);
    assert.equal(tolerated[0]?.path, 'spec.templateTests.ownerUserID');
    assert.equal(tolerated[0]?.reason, 'FieldValueTypeInvalid');
  });

  it('stops on a value of the wrong type, which no builder can read', () => {
    const cp = aControlPlane('coder')
      .withRawSpec({ replicas: 'two', resources: { limits: { cpu: '1 GB' } } })
      .build();
    const { blocking, tolerated } = partitionSchemaErrors(validateCoderControlPlane(cp));
    assert.ok(blocking.some((e) => e.path === 'spec.replicas' && e.reason === 'FieldValueTypeInvalid'));
    assert.deepEqual(tolerated, []);
  });
});

describe('specValidCondition', () => {
  it('is True with the message when nothing is tolerated, and records no Event', async () => {
    const { notes, events } = recorder();
    const condition = await specValidCondition({ events }, aControlPlane('coder').build(), 'Built.');
    assert.deepEqual(condition, { type: 'SpecValid', status: 'True', reason: 'Valid', message: 'Built.' });
    assert.deepEqual(notes, []);
  });

  it('names tolerated errors in the message, with one Warning Event until they change', async () => {
    const cp = aControlPlane('coder')
      .withRawSpec({ resources: { limits: { cpu: '1 GB' } } })
      .build();
    const tolerated = partitionSchemaErrors(validateCoderControlPlane(cp)).tolerated;
    const { notes, events } = recorder();
    const condition = await specValidCondition({ events }, cp, 'Built.', tolerated);
    assert.equal(condition.status, 'True');
    assert.match(
      condition.message,
      /^Built\. This operator's schema refuses values that the API server keeps until they change: spec\.resources\.limits\.cpu: Invalid value: "1 GB"/,
    );
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /^Warning SchemaWarning: This operator's schema refuses/);

    const reconciledAgain = aControlPlane('coder')
      .withRawSpec({ resources: { limits: { cpu: '1 GB' } } })
      .withStatus({ conditions: [{ ...condition, lastTransitionTime: '2026-01-01T00:00:00Z' }] })
      .build();
    await specValidCondition({ events }, reconciledAgain, 'Built.', tolerated);
    assert.equal(notes.length, 1, 'no second Event for the same errors');
  });
});
