import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildServiceAccount } from '../../../../../src/controllers/codercontrolplane/desired/service-account.ts';
import { aControlPlane, controlPlaneOwnerReference } from '../../../../fixtures/codercontrolplane.ts';

describe('buildServiceAccount', () => {
  it('is named like the control plane, with the standard labels and an owner reference', () => {
    assert.deepEqual(buildServiceAccount(aControlPlane('coder').inNamespace('coder').withUid('u-1').build()), {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        name: 'coder',
        namespace: 'coder',
        labels: {
          'app.kubernetes.io/name': 'coder-control-plane',
          'app.kubernetes.io/instance': 'coder',
          'app.kubernetes.io/managed-by': 'coder-k8s',
        },
        ownerReferences: [controlPlaneOwnerReference('coder', 'u-1')],
      },
    });
  });

  it('uses the given name, puts user labels over the standard ones and sets exactly the given annotations', () => {
    const sa = buildServiceAccount(
      aControlPlane('coder')
        .withServiceAccount({
          name: 'coder-sa',
          labels: { 'app.kubernetes.io/instance': 'custom', team: 'platform' },
          annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/coder' },
        })
        .build(),
    );
    assert.equal(sa?.metadata?.name, 'coder-sa');
    assert.deepEqual(sa?.metadata?.labels, {
      'app.kubernetes.io/name': 'coder-control-plane',
      'app.kubernetes.io/instance': 'custom',
      'app.kubernetes.io/managed-by': 'coder-k8s',
      team: 'platform',
    });
    assert.deepEqual(sa?.metadata?.annotations, { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/coder' });
  });

  it('is not built when disableCreate is true', () => {
    assert.equal(buildServiceAccount(aControlPlane('coder').withServiceAccount({ disableCreate: true }).build()), undefined);
  });
});
