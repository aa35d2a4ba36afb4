// rest_client_requests_total counts the requests this process really makes to the API server, as
// Prometheus scrapes them from /metrics.
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { countHttpClientRequests } from '../../src/runtime/http-client-metrics.ts';
import { createMetrics, startMetricsServer } from '../../src/runtime/metrics.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { sampleValue } from '../harness/prometheus.ts';

describe('rest_client_requests_total against a real API server', () => {
  let cp: ControlPlane;
  let metricsServer: { port: number; close(): Promise<void> } | undefined;
  let stopCounting = () => {};
  const metrics = createMetrics();

  before(async () => {
    cp = await startControlPlane();
    const apiHost = new URL(cp.server).host;
    stopCounting = countHttpClientRequests(metrics, (host) => host === apiHost);
    metricsServer = await startMetricsServer('127.0.0.1:0', metrics.registry);
  });
  after(async () => {
    stopCounting();
    await metricsServer?.close();
    await cp?.stop();
  });

  async function scrape(): Promise<string> {
    const response = await fetch(`http://127.0.0.1:${metricsServer!.port}/metrics`);
    assert.equal(response.status, 200);
    return response.text();
  }

  /** A request with no credentials, through https directly rather than a Kubernetes client. */
  function anonymousGet(path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(`${cp.server}${path}`, { ca: cp.caPem }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('counts each request by code and method, whichever client made it', async () => {
    const host = new URL(cp.server).host;
    const core = cp.adminConfig().makeApiClient(CoreV1Api);
    await assert.rejects(core.readNamespace({ name: 'no-such-namespace' }), (err) => (err as { code?: number }).code === 404);
    await core.listNamespace();
    const created = await core.createNamespace({ body: { metadata: { name: 'metrics-test' } } });
    assert.ok(created.metadata?.uid);
    const anonymousCode = await anonymousGet('/api/v1/namespaces/default/secrets');
    assert.ok(anonymousCode === 401 || anonymousCode === 403, `anonymous request got ${anonymousCode}`);

    // A watch counts when its response headers arrive, while the stream is still open.
    const watch = await new Watch(cp.adminConfig()).watch(
      '/api/v1/namespaces',
      { resourceVersion: '0' },
      () => {},
      () => {},
    );
    try {
      const text = await scrape();
      const count = (code: string, method: string) => sampleValue(text, 'rest_client_requests_total', { code, method, host });
      assert.equal(count('404', 'GET'), 1, text);
      assert.equal(count('200', 'GET'), 2, text);
      assert.equal(count('201', 'POST'), 1, text);
      assert.equal(count(String(anonymousCode), 'GET'), 1, text);
      // The scrape itself went to another host and is not counted.
      assert.equal(sampleValue(text, 'rest_client_requests_total', { host: `127.0.0.1:${metricsServer!.port}` }), undefined);
    } finally {
      watch.abort();
    }
  });
});
