import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isControllerOwnedBy } from '../../../src/runtime/ownership.ts';
import { aControlPlane } from '../../fixtures/codercontrolplane.ts';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { controllerOwnerReference } from '../../../src/runtime/object-names.ts';

describe('isControllerOwnedBy', () => {
  const cp = aControlPlane('coder').withUid('u-1').build();
  const ref = controllerOwnerReference(coderControlPlaneResource, cp);
  const owned = (refs: (typeof ref)[]) => ({ metadata: { ownerReferences: refs } });

  it('needs the controller reference to name the owner by group, kind, name and uid', () => {
    assert.equal(isControllerOwnedBy(owned([ref]), cp), true);
    assert.equal(isControllerOwnedBy(owned([{ ...ref, apiVersion: 'coder.com/v1beta1' }]), cp), true, 'another version of the group');
    assert.equal(isControllerOwnedBy(owned([{ ...ref, uid: 'u-0' }]), cp), false, 'a previous owner of that name');
    assert.equal(isControllerOwnedBy(owned([{ ...ref, controller: false }]), cp), false, 'not the controller');
    assert.equal(isControllerOwnedBy(owned([{ ...ref, apiVersion: 'other.io/v1alpha1' }]), cp), false);
    assert.equal(isControllerOwnedBy(owned([{ ...ref, kind: 'CoderProvisioner' }]), cp), false);
    assert.equal(isControllerOwnedBy({}, cp), false);
  });
});
