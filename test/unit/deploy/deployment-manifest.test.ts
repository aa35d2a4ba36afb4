import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { parseOperatorArgs, type OperatorOptions } from '../../../src/app/options.ts';

const deployment = parse(readFileSync('deploy/deployment.yaml', 'utf8')) as V1Deployment;
const container = deployment.spec!.template.spec!.containers[0]!;
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
/** The operator's flags at their defaults: the manifest passes none but --app. */
const defaults = parseOperatorArgs([]) as OperatorOptions;
const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

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
    assert.equal(probePort, portOf(defaults.healthProbeBindAddress));
  });

  it('serves metrics on their default port (HTTPS), and gives shutdown longer than the graceful shutdown timeout', () => {
    assert.equal(container.ports?.find((p) => p.name === 'metrics')?.containerPort, portOf(defaults.metricsBindAddress));
    assert.equal(defaults.metricsSecure, true);
    assert.ok((deployment.spec!.template.spec!.terminationGracePeriodSeconds ?? 30) * 1000 > defaults.gracefulShutdownTimeoutMs);
  });

  it("lets the aggregated API's Service and APIService (deploy/apiserver-*.yaml) reach the operator's pods on its port", () => {
    const service = parse(readFileSync('deploy/apiserver-service.yaml', 'utf8')) as V1Service;
    const apiService = parse(readFileSync('deploy/apiserver-apiservice.yaml', 'utf8')) as {
      spec: { service: { name: string; namespace: string; port: number } };
    };
    const podLabels = deployment.spec!.template.metadata!.labels!;
    const selector = Object.entries(service.spec!.selector ?? {});
    assert.ok(selector.length > 0, 'the Service selects pods');
    for (const [key, value] of selector) assert.equal(podLabels[key], value, `the pods carry the selector's ${key}`);
    assert.equal(service.metadata!.namespace, deployment.metadata!.namespace);
    const [port] = service.spec!.ports!;
    const target =
      typeof port!.targetPort === 'number' ? port!.targetPort : container.ports?.find((p) => p.name === port!.targetPort)?.containerPort;
    assert.equal(target, defaults.aggregated.securePort);
    assert.ok(
      container.ports?.some((p) => p.containerPort === target),
      'the container declares the port',
    );
    assert.deepEqual(apiService.spec.service, { name: service.metadata!.name, namespace: service.metadata!.namespace, port: port!.port });
  });

  it('runs read-only and unprivileged, as the image expects', () => {
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
    assert.equal(deployment.spec!.template.spec!.securityContext?.runAsNonRoot, true);
    assert.equal(deployment.spec!.template.spec!.volumes, undefined, 'no writable volume is needed');
  });
});
