import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildService } from '../../../../../src/controllers/codercontrolplane/desired/service.ts';
import { aControlPlane, controlPlaneOwnerReference } from '../../../../fixtures/codercontrolplane.ts';

const labels = {
  'app.kubernetes.io/name': 'coder-control-plane',
  'app.kubernetes.io/instance': 'coder',
  'app.kubernetes.io/managed-by': 'coder-k8s',
};
const http = (port: number) => ({ name: 'http', port, targetPort: 8080, protocol: 'TCP' });
const https = { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' };

describe('buildService', () => {
  const rows: { what: string; port?: number; tls: boolean; ports: object[] }[] = [
    { what: 'no TLS, default port', tls: false, ports: [http(80)] },
    { what: 'no TLS, port 8080', port: 8080, tls: false, ports: [http(8080)] },
    { what: 'TLS on port 80', port: 80, tls: true, ports: [http(80), https] },
    { what: 'TLS on port 8080', port: 8080, tls: true, ports: [http(8080), https] },
    { what: 'TLS on port 443', port: 443, tls: true, ports: [https, http(80)] },
  ];
  for (const row of rows) {
    it(`has these ports with ${row.what}`, () => {
      let builder = aControlPlane('coder');
      if (row.port !== undefined) builder = builder.withServicePort(row.port);
      if (row.tls) builder = builder.withTls('coder-tls');
      assert.deepEqual(buildService(builder.build()).spec!.ports, row.ports);
    });
  }

  it('is a ClusterIP Service selecting the Coder pods, owned by the control plane', () => {
    const svc = buildService(aControlPlane('coder').inNamespace('coder').withUid('u-1').build());
    assert.equal(svc.apiVersion, 'v1');
    assert.equal(svc.kind, 'Service');
    assert.deepEqual(svc.metadata, {
      name: 'coder',
      namespace: 'coder',
      labels,
      ownerReferences: [controlPlaneOwnerReference('coder', 'u-1')],
    });
    assert.deepEqual(svc.spec, { type: 'ClusterIP', selector: labels, ports: [http(80)] });
    assert.equal('status' in svc, false);
  });

  it('uses the given type, and exactly spec.service.annotations', () => {
    const annotations = { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' };
    const svc = buildService(aControlPlane('coder').withService({ type: 'LoadBalancer', annotations }).build());
    assert.equal(svc.spec!.type, 'LoadBalancer');
    assert.deepEqual(svc.metadata!.annotations, annotations);
    assert.equal(buildService(aControlPlane('coder').withService({ type: '' }).build()).spec!.type, 'ClusterIP');
  });
});
