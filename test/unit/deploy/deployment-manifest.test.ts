import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import { parse } from 'yaml';

const deployment = parse(readFileSync('deploy/deployment.yaml', 'utf8')) as V1Deployment;
const container = deployment.spec!.template.spec!.containers[0]!;
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

describe('deploy/deployment.yaml', () => {
  it('names the image by this release, never latest', () => {
    assert.equal(container.image, `ghcr.io/coder/coder-k8s:v${version}`);
  });

  it('sets CPU and memory requests and limits', () => {
    assert.deepEqual(Object.keys(container.resources?.requests ?? {}).sort(), ['cpu', 'memory']);
    assert.deepEqual(Object.keys(container.resources?.limits ?? {}).sort(), ['cpu', 'memory']);
  });

  it('probes liveness on /healthz and readiness on /readyz, on the probe port', () => {
    assert.equal(container.livenessProbe?.httpGet?.path, '/healthz');
    assert.equal(container.readinessProbe?.httpGet?.path, '/readyz');
    const probePort = container.ports?.find((p) => p.name === container.livenessProbe?.httpGet?.port)?.containerPort;
    assert.equal(probePort, 8081);
  });

  it('serves metrics on 8443 (HTTPS), and gives shutdown longer than the graceful shutdown timeout', () => {
    assert.equal(container.ports?.find((p) => p.name === 'metrics')?.containerPort, 8443);
    assert.ok((deployment.spec!.template.spec!.terminationGracePeriodSeconds ?? 30) > 30);
  });

  it('runs read-only and unprivileged, as the image expects', () => {
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
    assert.equal(deployment.spec!.template.spec!.securityContext?.runAsNonRoot, true);
    assert.equal(deployment.spec!.template.spec!.volumes, undefined, 'no writable volume is needed');
  });
});
