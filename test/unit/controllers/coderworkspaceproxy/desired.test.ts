import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildDeployment } from '../../../../src/controllers/coderworkspaceproxy/desired/deployment.ts';
import { childName, proxyLabels, tokenSecretName } from '../../../../src/controllers/coderworkspaceproxy/desired/names.ts';
import { buildService } from '../../../../src/controllers/coderworkspaceproxy/desired/service.ts';
import { buildTokenSecret } from '../../../../src/controllers/coderworkspaceproxy/desired/token-secret.ts';
import { SpecError } from '../../../../src/controllers/shared/spec-check.ts';
import { aWorkspaceProxy } from '../../../fixtures/coderworkspaceproxy.ts';

const owner = (name: string, uid: string) => ({
  apiVersion: 'coder.com/v1alpha1',
  kind: 'CoderWorkspaceProxy',
  name,
  uid,
  controller: true,
  blockOwnerDeletion: true,
});
const labels = {
  'app.kubernetes.io/name': 'coder-workspace-proxy',
  'app.kubernetes.io/instance': 'eu-west',
  'app.kubernetes.io/managed-by': 'coder-k8s',
};
const inputs = { primaryAccessURL: 'http://coder.coder.svc.cluster.local:80', token: { name: 'eu-west-proxy-token', key: 'token' } };

describe('workspace proxy names', () => {
  it('names children wsproxy-<name>, hashed to 63 characters when longer', () => {
    assert.equal(childName(aWorkspaceProxy('eu-west').build()), 'wsproxy-eu-west');
    const long = childName(aWorkspaceProxy('p'.repeat(80)).build());
    assert.equal(long.length, 63);
    assert.match(long, /^wsproxy-p+-[0-9a-f]{8}$/);
    assert.notEqual(long, childName(aWorkspaceProxy('p'.repeat(81)).build()));
    assert.equal(proxyLabels(aWorkspaceProxy('q'.repeat(80)).build())['app.kubernetes.io/instance']!.length, 63);
  });

  it('names the token Secret <name>-proxy-token unless spec.bootstrap.generatedTokenSecretName says otherwise', () => {
    assert.equal(tokenSecretName(aWorkspaceProxy('eu-west').build()), 'eu-west-proxy-token');
    const named = aWorkspaceProxy('eu-west')
      .withControlPlane()
      .withSpec({ bootstrap: { generatedTokenSecretName: 'mine' } })
      .build();
    assert.equal(tokenSecretName(named), 'mine');
    assert.ok(tokenSecretName(aWorkspaceProxy('n'.repeat(250)).build()).length <= 253);
  });
});

describe('buildDeployment (workspace proxy)', () => {
  it('runs `wsproxy server` with the primary access URL and the token from its Secret, owned by the proxy', () => {
    const d = buildDeployment(aWorkspaceProxy('eu-west').inNamespace('coder').withUid('u-1').build(), inputs);
    assert.deepEqual(d.metadata, { name: 'wsproxy-eu-west', namespace: 'coder', labels, ownerReferences: [owner('eu-west', 'u-1')] });
    assert.equal(d.spec!.replicas, 1);
    assert.deepEqual(d.spec!.selector.matchLabels, labels);
    assert.deepEqual(d.spec!.template.metadata, { labels });
    assert.deepEqual(d.spec!.template.spec, {
      containers: [
        {
          name: 'workspace-proxy',
          image: 'ghcr.io/coder/coder:latest',
          args: ['wsproxy', 'server', '--http-address=0.0.0.0:3001'],
          env: [
            { name: 'CODER_PRIMARY_ACCESS_URL', value: inputs.primaryAccessURL },
            { name: 'CODER_PROXY_SESSION_TOKEN', valueFrom: { secretKeyRef: { name: 'eu-west-proxy-token', key: 'token' } } },
          ],
          ports: [{ name: 'http', containerPort: 3001, protocol: 'TCP' }],
        },
      ],
    });
  });

  it('takes image, replicas, --derp-only, extra args and env, pull secrets and the rollout restart annotation from the spec', () => {
    const proxy = aWorkspaceProxy('eu-west')
      .withSpec({
        image: 'ghcr.io/coder/coder:v2.30.0',
        replicas: 3,
        derpOnly: true,
        extraArgs: ['--verbose'],
        imagePullSecrets: [{ name: 'pull' }],
      })
      .withExtraEnv({ name: 'CODER_ACCESS_URL', value: 'https://eu.example.com' })
      .build();
    const d = buildDeployment(proxy, { ...inputs, restartedAt: '2026-12-01T08:00:00Z' });
    const container = d.spec!.template.spec!.containers[0]!;
    assert.equal(container.image, 'ghcr.io/coder/coder:v2.30.0');
    assert.equal(d.spec!.replicas, 3);
    assert.deepEqual(container.args, ['wsproxy', 'server', '--http-address=0.0.0.0:3001', '--derp-only', '--verbose']);
    assert.deepEqual(
      container.env!.map((e) => e.name),
      ['CODER_PRIMARY_ACCESS_URL', 'CODER_PROXY_SESSION_TOKEN', 'CODER_ACCESS_URL'],
    );
    assert.deepEqual(d.spec!.template.spec!.imagePullSecrets, [{ name: 'pull' }]);
    assert.deepEqual(d.spec!.template.metadata!.annotations, { 'kubectl.kubernetes.io/restartedAt': '2026-12-01T08:00:00Z' });
  });

  it('refuses an extraEnv entry that sets one of the operator variables, naming the field', () => {
    const proxy = aWorkspaceProxy('eu-west').withExtraEnv({ name: 'CODER_PROXY_SESSION_TOKEN', value: 'x' }).build();
    assert.throws(
      () => buildDeployment(proxy, inputs),
      (err: unknown) => err instanceof SpecError && err.field === 'spec.extraEnv[0]' && /CODER_PROXY_SESSION_TOKEN/.test(err.message),
    );
  });
});

describe('buildService (workspace proxy)', () => {
  it('forwards port http (80 by default, also for 0) to 3001 and selects the proxy pods', () => {
    const svc = buildService(aWorkspaceProxy('eu-west').inNamespace('coder').withUid('u-1').build());
    assert.deepEqual(svc.metadata, { name: 'wsproxy-eu-west', namespace: 'coder', labels, ownerReferences: [owner('eu-west', 'u-1')] });
    assert.deepEqual(svc.spec, {
      type: 'ClusterIP',
      selector: labels,
      ports: [{ name: 'http', port: 80, targetPort: 3001, protocol: 'TCP' }],
    });
    assert.equal(
      buildService(
        aWorkspaceProxy()
          .withSpec({ service: { port: 0 } })
          .build(),
      ).spec!.ports![0]!.port,
      80,
    );
  });

  it('uses the type, port and exactly the annotations of spec.service', () => {
    const annotations = { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' };
    const svc = buildService(
      aWorkspaceProxy()
        .withSpec({ service: { type: 'LoadBalancer', port: 8080, annotations } })
        .build(),
    );
    assert.equal(svc.spec!.type, 'LoadBalancer');
    assert.equal(svc.spec!.ports![0]!.port, 8080);
    assert.deepEqual(svc.metadata!.annotations, annotations);
  });
});

describe('buildTokenSecret', () => {
  it('is marked as a credential for its proxy only, owned by it, and holds the token', () => {
    const secret = buildTokenSecret(aWorkspaceProxy('eu-west').inNamespace('coder').withUid('u-1').build(), 'id:secret');
    assert.deepEqual(secret.metadata, {
      name: 'eu-west-proxy-token',
      namespace: 'coder',
      labels: { ...labels, 'coder.com/credential': 'true' },
      annotations: { 'coder.com/credential-destinations': 'coderworkspaceproxy/eu-west' },
      ownerReferences: [owner('eu-west', 'u-1')],
    });
    assert.equal(secret.type, 'Opaque');
    assert.equal(Buffer.from(secret.data!.token!, 'base64').toString(), 'id:secret');
  });
});
