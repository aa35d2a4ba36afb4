import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeApiError } from '../../../src/runtime/kube-http.ts';
import { isNamespaceTerminatingError, isTerminating } from '../../../src/runtime/namespace-terminating.ts';

describe('terminating namespaces', () => {
  it('sees a namespace as terminating from its deletionTimestamp or its phase', () => {
    assert.equal(isTerminating({ metadata: { name: 'a', deletionTimestamp: new Date() } }), true);
    assert.equal(isTerminating({ metadata: { name: 'a' }, status: { phase: 'Terminating' } }), true);
    assert.equal(isTerminating({ metadata: { name: 'a' }, status: { phase: 'Active' } }), false);
    assert.equal(isTerminating(undefined), false);
  });

  it('tells the refusal to create in a terminating namespace from other 403s', () => {
    // The body the API server sends (NamespaceLifecycle admission).
    const refusal = new KubeApiError(
      403,
      {
        kind: 'Status',
        code: 403,
        reason: 'Forbidden',
        message: 'deployments.apps "coder" is forbidden: unable to create new content in namespace doomed because it is being terminated',
        details: {
          causes: [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }],
        },
      },
      'POST',
      '/apis/apps/v1/namespaces/doomed/deployments',
    );
    assert.equal(isNamespaceTerminatingError(refusal), true);
    const rbac = new KubeApiError(403, { kind: 'Status', code: 403, reason: 'Forbidden' }, 'POST', '/api/v1/namespaces/x/secrets');
    assert.equal(isNamespaceTerminatingError(rbac), false);
    assert.equal(isNamespaceTerminatingError(new Error('boom')), false);
  });
});
