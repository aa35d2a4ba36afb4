import type { V1Deployment, V1EnvVar } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildDeployment, type DeploymentInputs } from '../../../../../src/controllers/codercontrolplane/desired/deployment.ts';
import { SpecError } from '../../../../../src/controllers/shared/spec-check.ts';

import {
  aControlPlane,
  coderContainer,
  envNames,
  envValue,
  envVar,
  type ControlPlaneBuilder,
  controlPlaneOwnerReference,
} from '../../../../fixtures/codercontrolplane.ts';
import { fnv32a } from '../../../../../src/runtime/object-names.ts';

const noEnvFrom: DeploymentInputs = { accessUrlFromEnvFrom: false };
const build = (builder: ControlPlaneBuilder, inputs = noEnvFrom) => buildDeployment(builder.build(), inputs);
const podSpec = (d: V1Deployment) => d.spec!.template.spec!;

function specError(fn: () => unknown, field: string, words: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof SpecError, `expected a SpecError, got ${String(err)}`);
    assert.equal(err.field, field);
    assert.ok(err.message.startsWith(`${field}: `), err.message);
    assert.match(err.message, words);
    return true;
  });
}

describe('buildDeployment: env order', () => {
  const tlsVars = ['CODER_TLS_ENABLE', 'CODER_TLS_ADDRESS', 'CODER_TLS_CERT_FILE', 'CODER_TLS_KEY_FILE'];
  const rows: { what: string; builder: ControlPlaneBuilder; fromEnvFrom?: boolean; names: string[] }[] = [
    { what: 'nothing set', builder: aControlPlane(), names: ['KUBE_POD_IP', 'CODER_DERP_SERVER_RELAY_URL', 'CODER_ACCESS_URL'] },
    {
      what: 'database',
      builder: aControlPlane().withDatabase('coder-db-app', 'uri'),
      names: ['KUBE_POD_IP', 'CODER_DERP_SERVER_RELAY_URL', 'CODER_ACCESS_URL', 'CODER_PG_CONNECTION_URL'],
    },
    {
      what: 'TLS',
      builder: aControlPlane().withTls('a'),
      names: ['KUBE_POD_IP', 'CODER_DERP_SERVER_RELAY_URL', 'CODER_ACCESS_URL', ...tlsVars],
    },
    {
      what: 'TLS, database and extraEnv',
      builder: aControlPlane().withTls('a', 'b').withDatabase('coder-db-app', 'uri').withExtraEnv(envVar('FOO', '1'), envVar('BAR', '2')),
      names: ['KUBE_POD_IP', 'CODER_DERP_SERVER_RELAY_URL', 'CODER_ACCESS_URL', ...tlsVars, 'CODER_PG_CONNECTION_URL', 'FOO', 'BAR'],
    },
    {
      what: 'access URL from an envFrom source',
      builder: aControlPlane().withDatabase('coder-db-app', 'uri'),
      fromEnvFrom: true,
      names: ['KUBE_POD_IP', 'CODER_DERP_SERVER_RELAY_URL', 'CODER_PG_CONNECTION_URL'],
    },
    {
      what: 'envUseClusterAccessURL false',
      builder: aControlPlane().withEnvUseClusterAccessURL(false).withTls('a'),
      names: ['KUBE_POD_IP', 'CODER_DERP_SERVER_RELAY_URL', ...tlsVars],
    },
    {
      what: 'access URL in extraEnv',
      builder: aControlPlane().withTls('a').withExtraEnv(envVar('CODER_ACCESS_URL', 'https://coder.example.com')),
      names: ['KUBE_POD_IP', 'CODER_DERP_SERVER_RELAY_URL', ...tlsVars, 'CODER_ACCESS_URL'],
    },
  ];
  for (const row of rows) {
    it(`orders the env with ${row.what}: ${row.names.join(', ')}`, () => {
      assert.deepEqual(envNames(build(row.builder, { accessUrlFromEnvFrom: row.fromEnvFrom ?? false })), row.names);
    });
  }

  it('takes the pod IP from the downward API and relays DERP over it', () => {
    const d = build(aControlPlane());
    assert.deepEqual(envValue(d, 'KUBE_POD_IP'), { name: 'KUBE_POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } });
    assert.deepEqual(envValue(d, 'CODER_DERP_SERVER_RELAY_URL'), {
      name: 'CODER_DERP_SERVER_RELAY_URL',
      value: 'http://$(KUBE_POD_IP):8080',
    });
  });

  it('sets the default access URL to the Service URL without the default port', () => {
    assert.equal(
      envValue(build(aControlPlane('coder').inNamespace('coder')), 'CODER_ACCESS_URL')?.value,
      'http://coder.coder.svc.cluster.local',
    );
    assert.equal(
      envValue(build(aControlPlane('coder').inNamespace('coder').withServicePort(8080)), 'CODER_ACCESS_URL')?.value,
      'http://coder.coder.svc.cluster.local:8080',
    );
    assert.equal(
      envValue(build(aControlPlane('coder').inNamespace('coder').withTls('t')), 'CODER_ACCESS_URL')?.value,
      'https://coder.coder.svc.cluster.local',
    );
  });

  it('lists the certificate and key of each unique TLS secret', () => {
    const d = build(aControlPlane().withTls(' a ', 'b', 'a'));
    assert.equal(envValue(d, 'CODER_TLS_ENABLE')?.value, 'true');
    assert.equal(envValue(d, 'CODER_TLS_ADDRESS')?.value, '0.0.0.0:8443');
    assert.equal(envValue(d, 'CODER_TLS_CERT_FILE')?.value, '/etc/ssl/certs/coder/a/tls.crt,/etc/ssl/certs/coder/b/tls.crt');
    assert.equal(envValue(d, 'CODER_TLS_KEY_FILE')?.value, '/etc/ssl/certs/coder/a/tls.key,/etc/ssl/certs/coder/b/tls.key');
  });

  it('refuses CODER_ACCESS_URL twice in extraEnv', () => {
    const builder = aControlPlane().withExtraEnv(
      envVar('CODER_ACCESS_URL', 'https://a.example.com'),
      envVar('X', '1'),
      envVar('CODER_ACCESS_URL', 'https://b.example.com'),
    );
    specError(() => build(builder), 'spec.extraEnv[2]', /CODER_ACCESS_URL is configured more than once \(also spec\.extraEnv\[0\]\)/);
  });

  it('never puts an env value into an error message', () => {
    const builder = aControlPlane().withExtraEnv(envVar('TOKEN', 'hunter2'), envVar('TOKEN', 'hunter3'));
    assert.throws(
      () => build(builder),
      (err: Error) => !/hunter/.test(err.message),
    );
  });

  it('lets extraEnv override an operator variable instead of sending the name twice', () => {
    const d = build(aControlPlane().withExtraEnv(envVar('CODER_DERP_SERVER_RELAY_URL', 'http://relay:8080')));
    assert.deepEqual(envNames(d), ['KUBE_POD_IP', 'CODER_ACCESS_URL', 'CODER_DERP_SERVER_RELAY_URL']);
    assert.equal(envValue(d, 'CODER_DERP_SERVER_RELAY_URL')?.value, 'http://relay:8080');
  });
});

describe('buildDeployment: spec.database', () => {
  it('sets CODER_PG_CONNECTION_URL from a secretKeyRef, not a value', () => {
    const d = build(aControlPlane().withDatabase('coder-db-app', 'uri'));
    assert.deepEqual(envValue(d, 'CODER_PG_CONNECTION_URL'), {
      name: 'CODER_PG_CONNECTION_URL',
      valueFrom: { secretKeyRef: { name: 'coder-db-app', key: 'uri' } },
    });
  });

  it('never writes a connection URL anywhere in the Deployment', () => {
    const json = JSON.stringify(build(aControlPlane().withDatabase('coder-db-app', 'uri').withTls('a').withExtraEnv(envVar('FOO', 'bar'))));
    assert.doesNotMatch(json, /postgres(ql)?:\/\//);
    assert.equal((json.match(/CODER_PG_CONNECTION_URL/g) ?? []).length, 1);
  });

  it('refuses CODER_PG_CONNECTION_URL in extraEnv together with spec.database, in the admission rule words', () => {
    const builder = aControlPlane()
      .withDatabase('coder-db-app', 'uri')
      .withExtraEnv(envVar('CODER_PG_CONNECTION_URL', 'postgres://u:p@h/db'));
    specError(
      () => build(builder),
      'spec.extraEnv[0]',
      /spec\.extraEnv must not set CODER_PG_CONNECTION_URL when spec\.database\.connectionSecretRef is set/,
    );
    assert.throws(
      () => build(builder),
      (err: Error) => !err.message.includes('postgres://'),
    );
  });

  it('refuses a database reference without a key', () => {
    const cp = aControlPlane().build();
    cp.spec!.database = { connectionSecretRef: { name: 'coder-db-app' } };
    specError(() => buildDeployment(cp, noEnvFrom), 'spec.database.connectionSecretRef.key', /must not be empty/);
  });

  it('passes extraEnv through unchanged without spec.database (legacy path)', () => {
    const extraEnv: V1EnvVar[] = [
      envVar('CODER_ACCESS_URL', 'https://coder.example.com'),
      { name: 'CODER_PG_CONNECTION_URL', valueFrom: { secretKeyRef: { name: 'legacy-db', key: 'url' } } },
      envVar('CODER_VERBOSE', 'true'),
    ];
    const d = build(aControlPlane().withExtraEnv(...extraEnv));
    assert.deepEqual(coderContainer(d).env, [
      { name: 'KUBE_POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'CODER_DERP_SERVER_RELAY_URL', value: 'http://$(KUBE_POD_IP):8080' },
      ...extraEnv,
    ]);
  });
});

describe('buildDeployment: TLS and CA volumes', () => {
  it('mounts each unique TLS secret read-only under /etc/ssl/certs/coder', () => {
    const d = build(aControlPlane().withTls('coder-tls', ' coder-tls ', 'other.tls'));
    const hashed = `tls-other-tls-${fnv32a('tls\0other.tls')}`;
    assert.deepEqual(podSpec(d).volumes, [
      { name: 'tls-coder-tls', secret: { secretName: 'coder-tls' } },
      { name: hashed, secret: { secretName: 'other.tls' } },
    ]);
    assert.deepEqual(coderContainer(d).volumeMounts, [
      { name: 'tls-coder-tls', mountPath: '/etc/ssl/certs/coder/coder-tls', readOnly: true },
      { name: hashed, mountPath: '/etc/ssl/certs/coder/other.tls', readOnly: true },
    ]);
  });

  it('refuses an empty TLS secret name, naming its index', () => {
    specError(() => build(aControlPlane().withTls('a', '  ')), 'spec.tls.secretNames[1]', /empty/);
  });

  const caRows: { what: string; certs: { name: string; key: string }[]; files: string[]; volumes: string[] }[] = [
    {
      what: 'one key per secret gives <name>.crt',
      certs: [{ name: 'corp-ca', key: 'ca.pem' }],
      files: ['corp-ca.crt'],
      volumes: ['ca-cert-corp-ca'],
    },
    {
      what: 'a name already ending in .crt is not doubled, and a collision gets -2',
      certs: [
        { name: 'foo', key: 'ca' },
        { name: 'foo.crt', key: 'ca' },
      ],
      files: ['foo.crt', 'foo-2.crt'],
      volumes: ['ca-cert-foo', `ca-cert-foo-crt-${fnv32a('ca-cert\0foo.crt')}`],
    },
    {
      what: 'one secret with two keys gives <name>-<key>.crt and one volume',
      certs: [
        { name: 'bundle', key: 'root' },
        { name: 'bundle', key: 'inter.crt' },
      ],
      files: ['bundle-root.crt', 'bundle-inter.crt'],
      volumes: ['ca-cert-bundle'],
    },
    {
      what: 'a repeated name and key pair is skipped',
      certs: [
        { name: 'corp-ca', key: 'ca.pem' },
        { name: ' corp-ca ', key: 'ca.pem ' },
      ],
      files: ['corp-ca.crt'],
      volumes: ['ca-cert-corp-ca'],
    },
    {
      what: 'three collisions count on',
      certs: [
        { name: 'x', key: 'k' },
        { name: 'x.crt', key: 'k' },
        { name: 'x-2', key: 'k' },
      ],
      files: ['x.crt', 'x-2.crt', 'x-2-2.crt'],
      volumes: ['ca-cert-x', `ca-cert-x-crt-${fnv32a('ca-cert\0x.crt')}`, 'ca-cert-x-2'],
    },
  ];
  for (const row of caRows) {
    it(`mounts CA certificates by subPath: ${row.what}`, () => {
      const d = build(aControlPlane().withCerts(...row.certs));
      assert.deepEqual(
        podSpec(d).volumes?.map((v) => v.name),
        row.volumes,
      );
      assert.deepEqual(
        coderContainer(d).volumeMounts?.map((m) => m.mountPath),
        row.files.map((f) => `/etc/ssl/certs/${f}`),
      );
      for (const mount of coderContainer(d).volumeMounts ?? []) assert.equal(mount.readOnly, true);
    });
  }

  it('mounts each CA key by subPath from the secret volume', () => {
    const d = build(aControlPlane().withCerts({ name: 'bundle', key: 'root' }, { name: 'bundle', key: 'inter' }));
    assert.deepEqual(podSpec(d).volumes, [{ name: 'ca-cert-bundle', secret: { secretName: 'bundle' } }]);
    assert.deepEqual(coderContainer(d).volumeMounts, [
      { name: 'ca-cert-bundle', mountPath: '/etc/ssl/certs/bundle-root.crt', subPath: 'root', readOnly: true },
      { name: 'ca-cert-bundle', mountPath: '/etc/ssl/certs/bundle-inter.crt', subPath: 'inter', readOnly: true },
    ]);
  });

  it('refuses an empty CA secret name or key', () => {
    specError(
      () => build(aControlPlane().withCerts({ name: 'a', key: 'k' }, { name: ' ', key: 'k' })),
      'spec.certs.secrets[1].name',
      /empty/,
    );
    specError(() => build(aControlPlane().withCerts({ name: 'a', key: '' })), 'spec.certs.secrets[0].key', /empty/);
  });

  it('puts TLS, then CA, then spec.volumes and spec.volumeMounts', () => {
    const d = build(
      aControlPlane()
        .withTls('t')
        .withCerts({ name: 'c', key: 'k' })
        .withVolumes({ name: 'data', emptyDir: {} })
        .withVolumeMounts({ name: 'data', mountPath: '/data' }),
    );
    assert.deepEqual(
      podSpec(d).volumes?.map((v) => v.name),
      ['tls-t', 'ca-cert-c', 'data'],
    );
    assert.deepEqual(
      coderContainer(d).volumeMounts?.map((m) => m.mountPath),
      ['/etc/ssl/certs/coder/t', '/etc/ssl/certs/c.crt', '/data'],
    );
  });

  it('refuses a spec.volumes name or mount path that the operator already uses', () => {
    specError(
      () => build(aControlPlane().withTls('t').withVolumes({ name: 'tls-t', emptyDir: {} })),
      'spec.volumes[0]',
      /volume name "tls-t" is already used by spec\.tls\.secretNames\[0\]/,
    );
    specError(
      () => build(aControlPlane().withCerts({ name: 'c', key: 'k' }).withVolumeMounts({ name: 'x', mountPath: '/etc/ssl/certs/c.crt' })),
      'spec.volumeMounts[0]',
      /mount path "\/etc\/ssl\/certs\/c\.crt" is already used by spec\.certs\.secrets\[0\]/,
    );
  });

  it('has no volumes or mounts when nothing asks for them', () => {
    const d = build(aControlPlane());
    assert.equal('volumes' in podSpec(d), false);
    assert.equal('volumeMounts' in coderContainer(d), false);
  });
});

describe('buildDeployment: probes', () => {
  const defaults = {
    httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
    periodSeconds: 10,
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
  };

  it('has a readiness probe with defaults and no liveness probe by default', () => {
    const c = coderContainer(build(aControlPlane()));
    assert.deepEqual(c.readinessProbe, defaults);
    assert.equal(c.livenessProbe, undefined);
  });

  it('keeps liveness off for an explicit {} and readiness on for an explicit {}', () => {
    const c = coderContainer(build(aControlPlane().withLivenessProbe({}).withReadinessProbe({})));
    assert.equal(c.livenessProbe, undefined);
    assert.deepEqual(c.readinessProbe, defaults);
  });

  it('turns readiness off only for enabled false', () => {
    assert.equal(coderContainer(build(aControlPlane().withReadinessProbe({ enabled: false }))).readinessProbe, undefined);
  });

  it('turns liveness on for enabled true, with the given values', () => {
    const c = coderContainer(
      build(
        aControlPlane().withLivenessProbe({
          enabled: true,
          initialDelaySeconds: 30,
          periodSeconds: 5,
          timeoutSeconds: 2,
          successThreshold: 1,
          failureThreshold: 6,
        }),
      ),
    );
    assert.deepEqual(c.livenessProbe, { ...defaults, initialDelaySeconds: 30, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 6 });
  });
});

describe('buildDeployment: pod template', () => {
  it('copies restartedAt from the live template and nothing else', () => {
    const d = build(aControlPlane(), { accessUrlFromEnvFrom: false, restartedAt: '2026-02-20T10:00:00+01:00' });
    assert.deepEqual(d.spec!.template.metadata!.annotations, { 'kubectl.kubernetes.io/restartedAt': '2026-02-20T10:00:00+01:00' });
  });

  it('has no template annotations without a restartedAt', () => {
    assert.equal('annotations' in build(aControlPlane()).spec!.template.metadata!, false);
  });

  it('is a complete object for server-side apply, with labels, selector and owner reference and no status', () => {
    const d = build(aControlPlane('coder').inNamespace('coder').withUid('u-1'));
    const labels = {
      'app.kubernetes.io/name': 'coder-control-plane',
      'app.kubernetes.io/instance': 'coder',
      'app.kubernetes.io/managed-by': 'coder-k8s',
    };
    assert.equal(d.apiVersion, 'apps/v1');
    assert.equal(d.kind, 'Deployment');
    assert.deepEqual(d.metadata, {
      name: 'coder',
      namespace: 'coder',
      labels,
      ownerReferences: [controlPlaneOwnerReference('coder', 'u-1')],
    });
    assert.equal('status' in d, false);
    assert.equal(d.spec!.replicas, 1);
    assert.deepEqual(d.spec!.selector, { matchLabels: labels });
    assert.deepEqual(d.spec!.template.metadata!.labels, labels);
    assert.deepEqual(Object.keys(d.spec!), ['replicas', 'selector', 'template']);
  });

  it('runs one coder container with the default image, the HTTP address and extra args', () => {
    const d = build(aControlPlane().withReplicas(3).withExtraArgs('--verbose', '--prometheus-enable'));
    assert.equal(d.spec!.replicas, 3);
    assert.equal(podSpec(d).containers.length, 1);
    const c = coderContainer(d);
    assert.equal(c.name, 'coder');
    assert.equal(c.image, 'ghcr.io/coder/coder:latest');
    assert.deepEqual(c.args, ['--http-address=0.0.0.0:8080', '--verbose', '--prometheus-enable']);
    assert.equal(coderContainer(build(aControlPlane().withImage('ghcr.io/coder/coder:v2.20.0'))).image, 'ghcr.io/coder/coder:v2.20.0');
  });

  it('exposes http 8080, and https 8443 with TLS', () => {
    assert.deepEqual(coderContainer(build(aControlPlane())).ports, [{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    assert.deepEqual(coderContainer(build(aControlPlane().withTls('t'))).ports, [
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'https', containerPort: 8443, protocol: 'TCP' },
    ]);
  });

  it('copies scheduling, pull secrets, security contexts, resources and envFrom', () => {
    const spec = {
      imagePullSecrets: [{ name: 'ghcr' }],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'coder', effect: 'NoSchedule' }],
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['coder'] }] }],
          },
        },
      },
      podSecurityContext: { runAsNonRoot: true, fsGroup: 1000 },
      securityContext: { allowPrivilegeEscalation: false },
      resources: { requests: { cpu: '500m', memory: '1Gi' } },
      envFrom: [{ secretRef: { name: 'coder-env' } }],
    };
    const d = build(aControlPlane().withServiceAccount({ name: 'coder-sa' }).withSpec(spec));
    const pod = podSpec(d);
    assert.equal(pod.serviceAccountName, 'coder-sa');
    assert.deepEqual(pod.imagePullSecrets, spec.imagePullSecrets);
    assert.deepEqual(pod.nodeSelector, spec.nodeSelector);
    assert.deepEqual(pod.tolerations, spec.tolerations);
    assert.deepEqual(pod.topologySpreadConstraints, spec.topologySpreadConstraints);
    assert.deepEqual(pod.affinity, spec.affinity);
    assert.deepEqual(pod.securityContext, spec.podSecurityContext);
    const c = coderContainer(d);
    assert.deepEqual(c.securityContext, spec.securityContext);
    assert.deepEqual(c.resources, spec.resources);
    assert.deepEqual(c.envFrom, spec.envFrom);
  });

  it('leaves out empty lists and maps rather than owning them', () => {
    const d = build(aControlPlane().withSpec({ imagePullSecrets: [], nodeSelector: {}, tolerations: [], envFrom: [], resources: {} }));
    assert.deepEqual(Object.keys(podSpec(d)), ['serviceAccountName', 'containers']);
    assert.deepEqual(Object.keys(coderContainer(d)), ['name', 'image', 'args', 'env', 'ports', 'readinessProbe']);
  });

  it('does not share objects with the control plane', () => {
    const cp = aControlPlane()
      .withExtraEnv(envVar('A', '1'))
      .withSpec({ tolerations: [{ key: 'k' }] })
      .build();
    const d = buildDeployment(cp, noEnvFrom);
    coderContainer(d).env!.at(-1)!.value = 'changed';
    podSpec(d).tolerations![0]!.key = 'changed';
    assert.equal(cp.spec!.extraEnv![0]!.value, '1');
    assert.equal(cp.spec!.tolerations![0]!.key, 'k');
  });
});
