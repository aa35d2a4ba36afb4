import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { childrenOwnedCondition, notControlledMessage } from '../../../../../src/controllers/shared/workload/owned-children.ts';

const ChildrenOwned = { type: 'ChildrenOwned', reasons: { Owned: 'Owned', ObjectNotOwned: 'ObjectNotOwned' } };

describe('the children an owner does not control', () => {
  it('names them sorted, in the singular or the plural, and the owner in its kind’s words', () => {
    assert.equal(
      notControlledMessage(['Service "ns/a"'], 'this proxy'),
      'Service "ns/a" already exists and is not controlled by this proxy',
    );
    assert.equal(
      notControlledMessage(['Service "ns/b"', 'Deployment "ns/a"'], 'this control plane'),
      'Deployment "ns/a", Service "ns/b" already exist and are not controlled by this control plane',
    );
  });

  it('reports ChildrenOwned True while every child is the owner’s, else False ObjectNotOwned with what to do', () => {
    assert.deepEqual(childrenOwnedCondition(ChildrenOwned, [], 'this proxy'), {
      type: 'ChildrenOwned',
      status: 'True',
      reason: 'Owned',
      message: 'Every child object is managed by this proxy.',
    });
    assert.deepEqual(childrenOwnedCondition(ChildrenOwned, ['Deployment "ns/a"'], 'this control plane'), {
      type: 'ChildrenOwned',
      status: 'False',
      reason: 'ObjectNotOwned',
      message:
        'Deployment "ns/a" already exists and is not controlled by this control plane; the operator leaves them untouched and ' +
        'never deletes them. Delete or rename them to let the operator create its own.',
    });
  });
});
