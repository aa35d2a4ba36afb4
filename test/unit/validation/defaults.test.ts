// Structural defaulting before validation, as the API server decodes a request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kindValidators } from '../../../generated/validators/index.ts';
import { applyDefaults, pruneNulls } from '../../../src/validation/defaults.ts';
import type { StructuralNode } from '../../../src/validation/structural.ts';
import { runValidation, withDefaults } from '../../../src/validation/validate.ts';
import { validatorFor } from '../../../src/validation/validator-lookup.ts';
import { gatewayKeyManifest } from '../../fixtures/coderaigatewaykey.ts';
import { controlPlaneManifest } from '../../fixtures/codercontrolplane.ts';

const schema: StructuralNode = {
  type: 'object',
  properties: {
    service: {
      type: 'object',
      default: {},
      properties: { type: { type: 'string', default: 'ClusterIP' }, port: { type: 'integer', default: 80 } },
    },
    probe: {
      type: 'object',
      default: { enabled: true },
      properties: { enabled: { type: 'boolean' }, period: { type: 'integer', default: 10 } },
    },
    replicas: { type: 'integer' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    args: { type: 'array', items: { type: 'string' } },
  },
};

describe('defaults', () => {
  it('fills absent fields, then the defaults of the fields inside a default', () => {
    const obj: Record<string, unknown> = {};
    applyDefaults(obj, schema);
    assert.deepEqual(obj, { service: { type: 'ClusterIP', port: 80 }, probe: { enabled: true, period: 10 } });
  });

  it('replaces a null that has a default and drops one that has none, in maps too', () => {
    const obj: Record<string, unknown> = { service: null, replicas: null, labels: { a: null, b: 'x' }, args: [null] };
    pruneNulls(obj, schema);
    applyDefaults(obj, schema);
    assert.deepEqual(obj, {
      service: { type: 'ClusterIP', port: 80 },
      probe: { enabled: true, period: 10 },
      labels: { b: 'x' },
      args: [null],
    });
  });

  it('keeps values that are set, and copies default values', () => {
    const a: Record<string, unknown> = { service: { port: 8080 } };
    const b: Record<string, unknown> = {};
    applyDefaults(a, schema);
    applyDefaults(b, schema);
    assert.deepEqual(a.service, { port: 8080, type: 'ClusterIP' });
    (b.probe as Record<string, unknown>).enabled = false;
    assert.deepEqual(schema.properties!.probe!.default, { enabled: true });
  });

  it('applies defaults before the CEL rules see the object', () => {
    // gracePeriod defaults to 10m, which its rule accepts; the key name defaults to metadata.name.
    const key = gatewayKeyManifest({ rotation: {} });
    const v = validatorFor(kindValidators, 'coder.com/v1alpha1', 'CoderAIGatewayKey')!;
    assert.deepEqual(runValidation(v, key), []);
    assert.equal((withDefaults(v, key).spec as { rotation: { gracePeriod: string } }).rotation.gracePeriod, '10m');
  });

  it('gives a control plane the defaults of its schema without changing the object passed in', () => {
    const cp = controlPlaneManifest();
    const v = validatorFor(kindValidators, 'coder.com/v1alpha1', 'CoderControlPlane')!;
    const spec = withDefaults(v, cp).spec as Record<string, unknown>;
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.service, { type: 'ClusterIP', port: 80 });
    assert.deepEqual(spec.readinessProbe, { enabled: true });
    assert.deepEqual(cp.spec, {});
    runValidation(v, cp);
    assert.deepEqual(cp.spec, {});
  });
});
