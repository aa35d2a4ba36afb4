import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  childMetadata,
  deploymentEnvelope,
  serviceEnvelope,
  workloadLabels,
} from '../../../../../src/controllers/shared/workload/envelope.ts';

const labels = workloadLabels('coder-workspace-proxy', 'eu-west');
const owner = { metadata: { name: 'eu-west', namespace: 'coder', uid: 'u-1' } };
const type = { apiVersion: 'coder.com/v1alpha1', kind: 'CoderWorkspaceProxy' };
const metadata = childMetadata(type, owner, { name: 'wsproxy-eu-west', namespace: 'coder', labels });
const podSpec = { containers: [{ name: 'workspace-proxy', image: 'ghcr.io/coder/coder:latest' }] };

describe('the envelope of what an owner runs', () => {
  it('labels every child with the app, the instance and the operator, and makes the owner its controller', () => {
    assert.deepEqual(labels, {
      'app.kubernetes.io/name': 'coder-workspace-proxy',
      'app.kubernetes.io/instance': 'eu-west',
      'app.kubernetes.io/managed-by': 'coder-k8s',
    });
    assert.deepEqual(metadata, {
      name: 'wsproxy-eu-west',
      namespace: 'coder',
      labels,
      ownerReferences: [{ ...type, name: 'eu-west', uid: 'u-1', controller: true, blockOwnerDeletion: true }],
    });
  });

  it('builds a Deployment of one replica that selects its pods by the labels, with no pod annotation of its own', () => {
    const d = deploymentEnvelope({ metadata, podLabels: labels, replicas: undefined, restartedAt: undefined, podSpec });
    assert.equal(d.apiVersion, 'apps/v1');
    assert.equal(d.kind, 'Deployment');
    assert.deepEqual(d.metadata, metadata);
    assert.equal(d.spec!.replicas, 1);
    assert.deepEqual(d.spec!.selector, { matchLabels: labels });
    assert.deepEqual(d.spec!.template, { metadata: { labels }, spec: podSpec });
    assert.notEqual(d.spec!.template.spec, podSpec, 'a copy: no two objects share a list');
  });

  it("carries the operator's pod annotations and a rollout restart's restartedAt into the pod template", () => {
    const d = deploymentEnvelope({
      metadata,
      podLabels: labels,
      replicas: 0,
      podAnnotations: { 'checksum/provisioner-key': '0123abcd' },
      restartedAt: '2026-12-01T08:00:00Z',
      podSpec,
    });
    assert.equal(d.spec!.replicas, 0);
    assert.deepEqual(d.spec!.template.metadata!.annotations, {
      'checksum/provisioner-key': '0123abcd',
      'kubectl.kubernetes.io/restartedAt': '2026-12-01T08:00:00Z',
    });
  });

  it('builds a ClusterIP Service with exactly the annotations the spec gives, leaving what the server assigns alone', () => {
    const ports = [{ name: 'http', port: 80, targetPort: 3001, protocol: 'TCP' }];
    assert.deepEqual(serviceEnvelope(metadata, undefined, labels, ports), {
      apiVersion: 'v1',
      kind: 'Service',
      metadata,
      spec: { type: 'ClusterIP', selector: labels, ports },
    });
    const annotated = serviceEnvelope(metadata, { type: 'LoadBalancer', annotations: { a: 'b', unset: undefined } }, labels, ports);
    assert.deepEqual(annotated.metadata, { ...metadata, annotations: { a: 'b' } });
    assert.equal(annotated.spec!.type, 'LoadBalancer');
    assert.equal(metadata.annotations, undefined, 'the metadata given is not changed');
  });
});
