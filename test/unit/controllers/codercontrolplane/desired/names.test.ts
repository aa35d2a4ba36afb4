import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  controlPlaneLabels,
  defaultAccessURL,
  secretVolumeName,
  serviceAccountName,
} from '../../../../../src/controllers/codercontrolplane/desired/names.ts';
import {
  workspaceRoleBindingName,
  workspaceRoleName,
  workspaceScopeHash,
} from '../../../../../src/controllers/codercontrolplane/desired/workspace-rbac.ts';
import { aControlPlane } from '../../../../fixtures/codercontrolplane.ts';
import { backendPort, operatorApiURL, statusURL } from '../../../../../src/controlplane/endpoints.ts';
import { fnv32a } from '../../../../../src/runtime/object-names.ts';

describe('names: labels', () => {
  it('labels every child with the three standard labels', () => {
    assert.deepEqual(controlPlaneLabels(aControlPlane('coder').build()), {
      'app.kubernetes.io/name': 'coder-control-plane',
      'app.kubernetes.io/instance': 'coder',
      'app.kubernetes.io/managed-by': 'coder-k8s',
    });
  });
});

describe('names: service account and workspace RBAC names', () => {
  it('uses spec.serviceAccount.name, or the control plane name when unset or blank', () => {
    assert.equal(serviceAccountName(aControlPlane('coder').build()), 'coder');
    assert.equal(serviceAccountName(aControlPlane('coder').withServiceAccount({ name: ' coder-sa ' }).build()), 'coder-sa');
    assert.equal(serviceAccountName(aControlPlane('coder').withServiceAccount({ name: '   ' }).build()), 'coder');
  });

  it('hashes the control plane namespace and name into the RBAC names', () => {
    const cp = aControlPlane('coder').inNamespace('team-a').build();
    const hash = fnv32a('team-a\0coder');
    assert.equal(workspaceScopeHash(cp), hash);
    assert.equal(workspaceRoleName(cp), `coder-${hash}-workspace-perms`);
    assert.equal(workspaceRoleBindingName(cp), `coder-${hash}`);
    assert.notEqual(workspaceRoleName(aControlPlane('coder').inNamespace('team-b').build()), workspaceRoleName(cp));
  });

  it('cuts a long ServiceAccount name so that the names fit in 253 characters', () => {
    const cp = aControlPlane('coder')
      .inNamespace('coder')
      .withServiceAccount({ name: 'a'.repeat(250) })
      .build();
    const hash = workspaceScopeHash(cp);
    assert.equal(workspaceRoleName(cp), `${'a'.repeat(228)}-${hash}-workspace-perms`);
    assert.equal(workspaceRoleName(cp).length, 253);
    assert.equal(workspaceRoleBindingName(cp), `${'a'.repeat(244)}-${hash}`);
    assert.equal(workspaceRoleBindingName(cp).length, 253);
  });
});

describe('names: secret volume names', () => {
  const hash = (prefix: string, name: string) => fnv32a(`${prefix}\0${name}`);
  const rows: [string, string, string][] = [
    ['a clean name is used as is', 'coder-tls', 'tls-coder-tls'],
    ['an upper-case name is lower-cased', 'Coder', 'tls-coder'],
    ['a dot is replaced and the original hashed', 'coder.example.com', `tls-coder-example-com-${hash('tls', 'coder.example.com')}`],
    ['a run of other characters becomes one dash', 'a_.b', `tls-a-b-${hash('tls', 'a_.b')}`],
    ['dashes are trimmed from the ends', '.cert.', `tls-cert-${hash('tls', '.cert.')}`],
  ];
  for (const [what, name, expected] of rows)
    it(`${what}: ${name} -> ${expected}`, () => assert.equal(secretVolumeName('tls', name), expected));

  it('keeps two names that sanitize alike apart', () => {
    assert.notEqual(secretVolumeName('ca-cert', 'foo.bar'), secretVolumeName('ca-cert', 'foo_bar'));
    assert.notEqual(secretVolumeName('ca-cert', 'foo.bar'), secretVolumeName('ca-cert', 'foo-bar'));
  });

  it('cuts a long name to 63 characters with the hash at the end', () => {
    const name = 'x'.repeat(70);
    const volume = secretVolumeName('ca-cert', name);
    assert.equal(volume, `ca-cert-${'x'.repeat(63 - 'ca-cert'.length - 10)}-${hash('ca-cert', name)}`);
    assert.equal(volume.length, 63);
    assert.match(volume, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  it('keeps the plain form up to exactly 63 characters', () => {
    const name = 'y'.repeat(59);
    assert.equal(secretVolumeName('tls', name), `tls-${name}`);
  });
});

describe('names: ports and URLs', () => {
  const rows: { what: string; port?: number; tls: boolean; backend: number; status: string; operator: string; access: string }[] = [
    {
      what: 'defaults',
      tls: false,
      backend: 80,
      status: 'http://coder.coder.svc.cluster.local:80',
      operator: 'http://coder.coder.svc.cluster.local:80',
      access: 'http://coder.coder.svc.cluster.local',
    },
    {
      what: 'port 0 means 80',
      port: 0,
      tls: false,
      backend: 80,
      status: 'http://coder.coder.svc.cluster.local:80',
      operator: 'http://coder.coder.svc.cluster.local:80',
      access: 'http://coder.coder.svc.cluster.local',
    },
    {
      what: 'port 8080',
      port: 8080,
      tls: false,
      backend: 8080,
      status: 'http://coder.coder.svc.cluster.local:8080',
      operator: 'http://coder.coder.svc.cluster.local:8080',
      access: 'http://coder.coder.svc.cluster.local:8080',
    },
    {
      what: 'port 443 without TLS',
      port: 443,
      tls: false,
      backend: 443,
      status: 'http://coder.coder.svc.cluster.local:443',
      operator: 'http://coder.coder.svc.cluster.local:443',
      access: 'http://coder.coder.svc.cluster.local:443',
    },
    {
      what: 'TLS on port 80',
      port: 80,
      tls: true,
      backend: 80,
      status: 'https://coder.coder.svc.cluster.local:443',
      operator: 'http://coder.coder.svc.cluster.local:80',
      access: 'https://coder.coder.svc.cluster.local',
    },
    {
      what: 'TLS on port 443',
      port: 443,
      tls: true,
      backend: 80,
      status: 'https://coder.coder.svc.cluster.local:443',
      operator: 'http://coder.coder.svc.cluster.local:80',
      access: 'https://coder.coder.svc.cluster.local',
    },
    {
      what: 'TLS on port 8080',
      port: 8080,
      tls: true,
      backend: 8080,
      status: 'https://coder.coder.svc.cluster.local:443',
      operator: 'http://coder.coder.svc.cluster.local:8080',
      access: 'https://coder.coder.svc.cluster.local',
    },
  ];
  for (const row of rows) {
    it(`${row.what}: backend ${row.backend}, status ${row.status}, operator ${row.operator}`, () => {
      let builder = aControlPlane('coder').inNamespace('coder');
      if (row.port !== undefined) builder = builder.withServicePort(row.port);
      if (row.tls) builder = builder.withTls('coder-tls');
      const cp = builder.build();
      assert.equal(backendPort(cp), row.backend);
      assert.equal(statusURL(cp), row.status);
      assert.equal(operatorApiURL(cp), row.operator);
      assert.equal(defaultAccessURL(cp), row.access);
    });
  }

  it('calls Coder over plain HTTP on :80 with TLS on port 80 and on port 443, while status.url is https', () => {
    for (const port of [80, 443]) {
      const cp = aControlPlane('coder').inNamespace('coder').withTls('coder-tls').withServicePort(port).build();
      assert.ok(operatorApiURL(cp).startsWith('http://'));
      assert.ok(operatorApiURL(cp).endsWith(':80'));
      assert.ok(statusURL(cp).startsWith('https://'));
    }
  });
});
