import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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

  it('writes IntOrString and Quantity as x-kubernetes-int-or-string', () => {
    for (const name of ['io.k8s.apimachinery.pkg.util.intstr.IntOrString', 'io.k8s.apimachinery.pkg.api.resource.Quantity']) {
      const out = normalizeDefinition(name, { type: 'string', format: 'int-or-string', description: 'd' });
      assert.deepEqual(out, { description: 'd', 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    }
  });
});
