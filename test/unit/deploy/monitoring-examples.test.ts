// examples/monitoring: the alert rules name only metrics the operator registers, and the ServiceMonitor
// selects the metrics Service that deploy/ ships, on its port.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { createOperatorMetrics } from '../../../src/controllers/shared/metrics.ts';
import { createMetrics } from '../../../src/runtime/metrics.ts';

const yaml = (path: string) => parse(readFileSync(path, 'utf8')) as Record<string, any>;

describe('examples/monitoring', () => {
  it('alerts only on metrics the operator serves', async () => {
    const metrics = createMetrics();
    createOperatorMetrics(metrics.registry);
    const served = new Set<string>();
    for (const metric of await metrics.registry.getMetricsAsJSON()) {
      served.add(metric.name);
      if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) served.add(metric.name + suffix);
    }
    const rules = yaml('examples/monitoring/prometheusrule.yaml').spec.groups.flatMap((g: { rules: unknown[] }) => g.rules) as {
      alert: string;
      expr: string;
    }[];
    assert.ok(rules.length >= 5);
    for (const rule of rules) {
      const names = [...rule.expr.matchAll(/\b((?:coder_k8s|controller_runtime|workqueue|rest_client)_\w+)/g)].map((m) => m[1]!);
      assert.ok(names.length > 0, `${rule.alert} names no operator metric`);
      for (const name of names) assert.ok(served.has(name), `${rule.alert}: the operator serves no metric ${name}`);
    }
  });

  it('selects the metrics Service of deploy/metrics-service.yaml on its metrics port', () => {
    const monitor = yaml('examples/monitoring/servicemonitor.yaml');
    const service = yaml('deploy/metrics-service.yaml');
    assert.deepEqual(monitor.spec.namespaceSelector.matchNames, [service.metadata.namespace]);
    const matchLabels = Object.entries((monitor.spec.selector?.matchLabels ?? {}) as Record<string, string>);
    assert.ok(matchLabels.length > 0, 'the ServiceMonitor selects by label (an empty selector matches every Service)');
    for (const [label, value] of matchLabels)
      assert.equal(service.metadata.labels[label], value, `the Service lacks the label ${label}=${value}`);
    const ports = (service.spec.ports as { name: string }[]).map((p) => p.name);
    const endpoints = (monitor.spec.endpoints ?? []) as { port: string; scheme: string }[];
    assert.ok(endpoints.length > 0, 'the ServiceMonitor names an endpoint to scrape');
    for (const endpoint of endpoints) {
      assert.ok(ports.includes(endpoint.port), `the Service has no port named ${endpoint.port}`);
      assert.equal(endpoint.scheme, 'https', 'the operator serves metrics over HTTPS');
    }
  });
});
