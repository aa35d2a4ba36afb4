// The compatibility rule for embedded Kubernetes types, as codegen enforces it on the definitions file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compatibilityProblems, quantityDefinition, quantityPattern } from '../../../codegen/kubernetes-compat.ts';
import { loadKubernetesDefinitions } from '../../../codegen/load.ts';

describe('compatibilityProblems', () => {
  it('finds nothing in the committed definitions', () => {
    assert.deepEqual(compatibilityProblems(loadKubernetesDefinitions()), []);
  });

  it('names an enum, a lost atomic map type and a Quantity without its pattern', () => {
    const problems = compatibilityProblems({
      'io.k8s.api.core.v1.Toleration': { type: 'object', properties: { effect: { type: 'string', enum: ['NoSchedule'] } } },
      'io.k8s.api.core.v1.ConfigMapEnvSource': { type: 'object', properties: { name: { type: 'string' } } },
      [quantityDefinition]: { 'x-kubernetes-int-or-string': true },
    });
    assert.equal(problems.length, 3);
    assert.match(problems[0]!, /^io\.k8s\.api\.core\.v1\.Toleration: has an enum/);
    assert.match(problems[1]!, /^io\.k8s\.api\.core\.v1\.ConfigMapEnvSource: must be x-kubernetes-map-type: atomic/);
    assert.match(problems[2]!, /Quantity: must carry the resource\.Quantity pattern/);
  });

  it('accepts a Quantity with the pattern', () => {
    assert.deepEqual(compatibilityProblems({ [quantityDefinition]: { pattern: quantityPattern } }), []);
  });
});
