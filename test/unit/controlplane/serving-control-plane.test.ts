import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { servingControlPlane } from '../../../src/controlplane/serving-control-plane.ts';

function controlPlane(name: string, status: CoderControlPlane['status'] = ready()): CoderControlPlane {
  return { apiVersion: 'coder.com/v1alpha1', kind: 'CoderControlPlane', metadata: { name, namespace: 'team' }, spec: {}, status };
}

function ready(): CoderControlPlane['status'] {
  return {
    operatorAccessReady: true,
    operatorTokenSecretRef: { name: 'coder-operator-token', key: 'token' },
    url: 'http://coder.team.svc:80',
  };
}

describe('servingControlPlane', () => {
  it('chooses the one control plane whose operator access is ready', () => {
    const choice = servingControlPlane([controlPlane('waiting', { operatorAccessReady: false }), controlPlane('coder')]);
    assert.equal(choice.kind, 'one');
    assert.equal(choice.kind === 'one' && choice.controlPlane.metadata.name, 'coder');
  });

  it('never chooses a name with "." (the aggregated API cannot name its objects), for MCP as for the aggregated API', () => {
    assert.deepEqual(servingControlPlane([controlPlane('coder.prod')]), { kind: 'none' });
  });

  it('names every candidate when several could serve', () => {
    assert.deepEqual(servingControlPlane([controlPlane('a'), controlPlane('b')]), { kind: 'several', names: ['a', 'b'] });
  });

  it('skips one being deleted, one without a URL, one without a token Secret, and one with operator access disabled', () => {
    const deleting = {
      ...controlPlane('d'),
      metadata: { name: 'd', namespace: 'team', deletionTimestamp: new Date('2026-01-01T00:00:00Z') },
    };
    const disabled = { ...controlPlane('x'), spec: { operatorAccess: { disabled: true } } };
    const noURL = controlPlane('u', { ...ready(), url: '  ' });
    const noSecret = controlPlane('s', { ...ready(), operatorTokenSecretRef: undefined });
    assert.deepEqual(servingControlPlane([deleting, disabled, noURL, noSecret]), { kind: 'none' });
  });
});
