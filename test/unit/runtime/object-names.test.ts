import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { controllerOwnerReference, fitName, fnv32a } from '../../../src/runtime/object-names.ts';
import { aControlPlane } from '../../fixtures/codercontrolplane.ts';

describe('controllerOwnerReference', () => {
  it('makes a blocking controller reference to the control plane', () => {
    assert.deepEqual(controllerOwnerReference(coderControlPlaneResource, aControlPlane('coder').withUid('u-1').build()), {
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderControlPlane',
      name: 'coder',
      uid: 'u-1',
      controller: true,
      blockOwnerDeletion: true,
    });
  });
});

describe('fnv32a', () => {
  const rows: [string, string][] = [
    ['', '811c9dc5'],
    ['a', 'e40c292c'],
    ['foobar', 'bf9cf968'],
  ];
  for (const [text, hash] of rows) {
    it(`hashes ${JSON.stringify(text)} to ${hash}`, () => assert.equal(fnv32a(text), hash));
  }

  it('always gives 8 lower-case hex digits', () => {
    for (const text of ['x', 'coder\0coder', 'ünïcødé']) assert.match(fnv32a(text), /^[0-9a-f]{8}$/);
  });
});

describe('fitName', () => {
  it('trims - and . from the cut prefix, and falls back to "workspace" when nothing is left', () => {
    assert.equal(fitName(`${'a'.repeat(6)}.-bbbb`, '-suffix', 'workspace', 15), 'aaaaaa-suffix');
    assert.equal(fitName('-.-.-.-.-.', '-suffix', 'workspace', 12), 'workspace-suffix');
    assert.equal(fitName('short', '-suffix', 'workspace', 253), 'short-suffix');
  });
});
