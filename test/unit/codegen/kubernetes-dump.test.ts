import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quantityDefinition, quantityPattern } from '../../../codegen/kubernetes-compat.ts';
import { normalizeDefinition } from '../../../codegen/kubernetes-dump.ts';

describe('normalizeDefinition', () => {
  it('turns allOf wrappers into refs into the definitions file and drops non-CRD keywords', () => {
    const out = normalizeDefinition('io.k8s.api.core.v1.EnvVar', {
      type: 'object',
      'x-kubernetes-patch-strategy': 'merge',
      properties: {
        valueFrom: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.EnvVarSource' }], description: 'Source.' },
      },
    });
    assert.deepEqual(out, {
      type: 'object',
      properties: { valueFrom: { description: 'Source.', $ref: '#/definitions/io.k8s.api.core.v1.EnvVarSource' } },
    });
  });

  it('drops Go zero-value defaults and keeps meaningful ones', () => {
    const out = normalizeDefinition('x', {
      type: 'object',
      properties: {
        protocol: { type: 'string', default: 'TCP' },
        name: { type: 'string', default: '' },
        weight: { type: 'integer', default: 0 },
        selector: { type: 'object', default: {} },
      },
    }) as any;
    assert.equal(out.properties.protocol.default, 'TCP');
    for (const field of ['name', 'weight', 'selector']) assert.equal('default' in out.properties[field], false, field);
  });

  it('writes IntOrString and Quantity as x-kubernetes-int-or-string, Quantity with its pattern', () => {
    const intOrString = { description: 'd', 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    const input = { type: 'string', format: 'int-or-string', description: 'd' };
    assert.deepEqual(normalizeDefinition('io.k8s.apimachinery.pkg.util.intstr.IntOrString', input), intOrString);
    assert.deepEqual(normalizeDefinition(quantityDefinition, input), { ...intOrString, pattern: quantityPattern });
  });

  it('drops enums at any depth, but not a field named enum', () => {
    const out = normalizeDefinition('io.k8s.api.core.v1.Toleration', {
      type: 'object',
      properties: {
        effect: { type: 'string', enum: ['NoExecute', 'NoSchedule'] },
        enum: { type: 'array', items: { type: 'string', enum: ['a'] } },
      },
    });
    assert.deepEqual(out, {
      type: 'object',
      properties: { effect: { type: 'string' }, enum: { type: 'array', items: { type: 'string' } } },
    });
  });

  it('marks structs that embed LocalObjectReference atomic', () => {
    const out = normalizeDefinition('io.k8s.api.core.v1.SecretEnvSource', { type: 'object', properties: { name: { type: 'string' } } });
    assert.equal(out['x-kubernetes-map-type'], 'atomic');
  });
});
