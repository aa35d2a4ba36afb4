import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildHTTPRoute, buildIngress } from '../../../../../src/controllers/codercontrolplane/desired/exposure.ts';
import { SpecError } from '../../../../../src/controllers/shared/spec-check.ts';
import { aControlPlane } from '../../../../fixtures/codercontrolplane.ts';

const labels = {
  'app.kubernetes.io/name': 'coder-control-plane',
  'app.kubernetes.io/instance': 'coder',
  'app.kubernetes.io/managed-by': 'coder-k8s',
};
const ownerReferences = [
  { apiVersion: 'coder.com/v1alpha1', kind: 'CoderControlPlane', name: 'coder', uid: 'u-1', controller: true, blockOwnerDeletion: true },
];
const cp = () => aControlPlane('coder').inNamespace('coder').withUid('u-1');

function specError(fn: () => unknown, field: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof SpecError, String(err));
    assert.equal(err.field, field);
    assert.ok(err.message.startsWith(`${field}: `), err.message);
    return true;
  });
}

describe('buildIngress', () => {
  const rule = (host: string, port: number) => ({
    host,
    http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'coder', port: { number: port } } } }] },
  });

  it('routes the host and the wildcard host to the Service, with TLS entries and annotations', () => {
    const ingress = buildIngress(
      cp()
        .withIngress({
          host: ' coder.example.com ',
          wildcardHost: '*.coder.example.com',
          className: 'nginx',
          annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
          tls: { secretName: 'coder-tls', wildcardSecretName: 'coder-wildcard-tls' },
        })
        .build(),
    );
    assert.deepEqual(ingress, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: {
        name: 'coder',
        namespace: 'coder',
        labels,
        ownerReferences,
        annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
      },
      spec: {
        ingressClassName: 'nginx',
        rules: [rule('coder.example.com', 80), rule('*.coder.example.com', 80)],
        tls: [
          { secretName: 'coder-tls', hosts: ['coder.example.com'] },
          { secretName: 'coder-wildcard-tls', hosts: ['*.coder.example.com'] },
        ],
      },
    });
  });

  it('has one rule and no class, TLS or annotations when only the host is set', () => {
    assert.deepEqual(buildIngress(cp().withIngress({ host: 'coder.example.com' }).build()).spec, {
      rules: [rule('coder.example.com', 80)],
    });
    assert.equal('annotations' in buildIngress(cp().withIngress({ host: 'coder.example.com' }).build()).metadata!, false);
  });

  const portRows: [string, number | undefined, boolean, number][] = [
    ['the service port', 8080, false, 8080],
    ['80 when TLS is on and the service port is 443', 443, true, 80],
    ['443 without TLS', 443, false, 443],
  ];
  for (const [what, port, tls, backend] of portRows) {
    it(`sends traffic to ${what}`, () => {
      let builder = cp().withIngress({ host: 'coder.example.com' });
      if (port !== undefined) builder = builder.withServicePort(port);
      if (tls) builder = builder.withTls('t');
      assert.equal(buildIngress(builder.build()).spec!.rules![0]!.http!.paths[0]!.backend.service!.port!.number, backend);
    });
  }

  it('refuses an empty host', () => specError(() => buildIngress(cp().withIngress({ host: '  ' }).build()), 'spec.expose.ingress.host'));

  it('refuses a wildcard TLS secret without a wildcard host', () => {
    specError(
      () =>
        buildIngress(
          cp()
            .withIngress({ host: 'coder.example.com', tls: { wildcardSecretName: 'w' } })
            .build(),
        ),
      'spec.expose.ingress.tls.wildcardSecretName',
    );
  });

  it('refuses ingress and gateway together', () => {
    const both = cp().build();
    both.spec!.expose = { ingress: { host: 'a.example.com' }, gateway: { host: 'a.example.com', parentRefs: [{ name: 'gw' }] } };
    specError(() => buildIngress(both), 'spec.expose');
    specError(() => buildHTTPRoute(both), 'spec.expose');
  });
});

describe('buildHTTPRoute', () => {
  it('attaches to the parent Gateways and routes every path to the Service', () => {
    const route = buildHTTPRoute(
      cp()
        .withTls('t')
        .withServicePort(443)
        .withGateway({
          host: 'coder.example.com',
          wildcardHost: ' *.coder.example.com ',
          parentRefs: [{ name: 'public', namespace: ' gateways ', sectionName: 'https' }, { name: 'internal' }],
        })
        .build(),
    );
    assert.deepEqual(route, {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'coder', namespace: 'coder', labels, ownerReferences },
      spec: {
        parentRefs: [{ name: 'public', namespace: 'gateways', sectionName: 'https' }, { name: 'internal' }],
        hostnames: ['coder.example.com', '*.coder.example.com'],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/' } }],
            backendRefs: [{ group: '', kind: 'Service', name: 'coder', port: 80 }],
          },
        ],
      },
    });
  });

  it('has only the host when no wildcard host is set', () => {
    assert.deepEqual(
      buildHTTPRoute(
        cp()
          .withGateway({ host: 'coder.example.com', parentRefs: [{ name: 'gw' }] })
          .build(),
      ).spec.hostnames,
      ['coder.example.com'],
    );
  });

  const errorRows: [string, Parameters<ReturnType<typeof cp>['withGateway']>[0], string][] = [
    ['an empty host', { host: ' ', parentRefs: [{ name: 'gw' }] }, 'spec.expose.gateway.host'],
    ['no parentRefs', { host: 'coder.example.com', parentRefs: [] }, 'spec.expose.gateway.parentRefs'],
    [
      'a blank parent name',
      { host: 'coder.example.com', parentRefs: [{ name: 'gw' }, { name: ' ' }] },
      'spec.expose.gateway.parentRefs[1].name',
    ],
    [
      'a blank parent namespace',
      { host: 'coder.example.com', parentRefs: [{ name: 'gw', namespace: ' ' }] },
      'spec.expose.gateway.parentRefs[0].namespace',
    ],
    [
      'a blank sectionName',
      { host: 'coder.example.com', parentRefs: [{ name: 'gw', sectionName: '' }] },
      'spec.expose.gateway.parentRefs[0].sectionName',
    ],
  ];
  for (const [what, gateway, field] of errorRows) {
    it(`refuses ${what}`, () => specError(() => buildHTTPRoute(cp().withGateway(gateway).build()), field));
  }
});
