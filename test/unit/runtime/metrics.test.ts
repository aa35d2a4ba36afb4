import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { countHttpClientRequests } from '../../../src/runtime/http-client-metrics.ts';
import { createMetrics, startMetricsServer } from '../../../src/runtime/metrics.ts';
import { parseSamples, sampleValue } from '../../harness/prometheus.ts';

describe('createMetrics', () => {
  it('exposes every operator metric with its labels in the text format', async () => {
    const metrics = createMetrics();
    metrics.reconcileTotal.inc({ controller: 'codercontrolplane', result: 'success' });
    metrics.reconcileErrors.inc({ controller: 'codercontrolplane' });
    metrics.reconcileTime.observe({ controller: 'codercontrolplane' }, 0.2);
    metrics.workqueueDepth.set({ name: 'codercontrolplane' }, 3);
    metrics.workqueueAdds.inc({ name: 'codercontrolplane' });
    metrics.workqueueRetries.inc({ name: 'codercontrolplane' });
    metrics.workqueueQueueDuration.observe({ name: 'codercontrolplane' }, 0.001);
    metrics.workqueueWorkDuration.observe({ name: 'codercontrolplane' }, 0.05);
    metrics.restClientRequests.inc({ code: '200', method: 'GET', host: '127.0.0.1:6443' });
    metrics.leaderElectionMasterStatus.set({ name: 'coder-k8s-controller.coder.com' }, 1);
    const text = await metrics.registry.metrics();

    const expected: Array<[string, Record<string, string>, number]> = [
      ['controller_runtime_reconcile_total', { controller: 'codercontrolplane', result: 'success' }, 1],
      ['controller_runtime_reconcile_errors_total', { controller: 'codercontrolplane' }, 1],
      ['controller_runtime_reconcile_time_seconds_count', { controller: 'codercontrolplane' }, 1],
      ['controller_runtime_reconcile_time_seconds_bucket', { controller: 'codercontrolplane', le: '0.25' }, 1],
      ['controller_runtime_reconcile_time_seconds_bucket', { controller: 'codercontrolplane', le: '0.15' }, 0],
      ['workqueue_depth', { name: 'codercontrolplane' }, 3],
      ['workqueue_adds_total', { name: 'codercontrolplane' }, 1],
      ['workqueue_retries_total', { name: 'codercontrolplane' }, 1],
      ['workqueue_queue_duration_seconds_bucket', { name: 'codercontrolplane', le: '0.001' }, 1],
      ['workqueue_work_duration_seconds_bucket', { name: 'codercontrolplane', le: '0.1' }, 1],
      ['workqueue_work_duration_seconds_bucket', { name: 'codercontrolplane', le: '1e-8' }, 0],
      ['rest_client_requests_total', { code: '200', method: 'GET', host: '127.0.0.1:6443' }, 1],
      ['leader_election_master_status', { name: 'coder-k8s-controller.coder.com' }, 1],
    ];
    for (const [name, labels, value] of expected) {
      assert.equal(sampleValue(text, name, labels), value, `${name} ${JSON.stringify(labels)}`);
    }
    assert.ok(
      parseSamples(text).some((sample) => sample.name === 'process_cpu_seconds_total'),
      'no process metrics',
    );
  });

  it("serves every default metric prom-client's own collectDefaultMetrics registers, with its help text, and counts CPU", async () => {
    const prom = await import('prom-client');
    const reference = new prom.Registry();
    prom.collectDefaultMetrics({ register: reference });
    const ours = createMetrics().registry;
    const described = (registry: typeof reference) => registry.getMetricsAsArray().map((m) => `${m.name} (${m.type}): ${m.help}`);
    const served = new Set(described(ours));
    assert.deepEqual(
      described(reference).filter((m) => !served.has(m)),
      [],
    );
    // Busy until the kernel has counted some user CPU (it counts in ticks): a fixed loop may take less on a fast machine.
    const start = process.cpuUsage();
    const deadline = Date.now() + 10_000;
    let busy = 0;
    while (process.cpuUsage(start).user < 30_000 && Date.now() < deadline) for (let i = 0; i < 1e5; i++) busy += i;
    assert.ok(busy > 0);
    const text = await ours.metrics();
    const cpu = sampleValue(text, 'process_cpu_seconds_total')!;
    const user = sampleValue(text, 'process_cpu_user_seconds_total')!;
    assert.ok(cpu > 0 && user > 0 && user <= cpu, `process CPU ${cpu} s, of it user ${user} s`);
  });

  it('gives each call its own registry', async () => {
    const first = createMetrics();
    const second = createMetrics();
    first.workqueueAdds.inc({ name: 'q' });
    assert.equal(sampleValue(await second.registry.metrics(), 'workqueue_adds_total', { name: 'q' }), undefined);
  });
});

describe('startMetricsServer', () => {
  it('is disabled by "0"', async () => {
    assert.equal(await startMetricsServer('0', createMetrics().registry), undefined);
  });

  it('serves /metrics and answers 404 elsewhere', async () => {
    const metrics = createMetrics();
    metrics.workqueueAdds.inc({ name: 'served' });
    const server = await startMetricsServer('127.0.0.1:0', metrics.registry);
    assert.ok(server);
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      assert.equal(sampleValue(await response.text(), 'workqueue_adds_total', { name: 'served' }), 1);
      assert.equal((await fetch(`http://127.0.0.1:${server.port}/`)).status, 404);
      assert.equal((await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: 'POST' })).status, 404);
    } finally {
      await server.close();
    }
  });

  it('rejects an address it cannot parse, naming it', async () => {
    await assert.rejects(startMetricsServer('8080', createMetrics().registry), /invalid bind address "8080"/);
  });
});

describe('countHttpClientRequests', () => {
  let server: Server;
  let host: string;
  before(async () => {
    server = createServer((req, res) => {
      res.statusCode = req.url === '/missing' ? 404 : 200;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (url: string, method = 'GET') =>
    new Promise<void>((resolve) => {
      const req = httpRequest(url, { method }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end();
    });

  it('counts requests to the API server by code and method, and nothing else', async () => {
    const metrics = createMetrics();
    const stop = countHttpClientRequests(metrics, (h) => h === host);
    try {
      await get(`http://${host}/missing`);
      await get(`http://${host}/ok`);
      await get(`http://${host}/ok`, 'patch');
      await fetch(`http://${host}/ok`).then((response) => response.text());
      await get(`http://localhost:${host.split(':')[1]}/ok`);
    } finally {
      stop();
    }
    await get(`http://${host}/ok`);
    const text = await metrics.registry.metrics();
    assert.equal(sampleValue(text, 'rest_client_requests_total', { code: '404', method: 'GET', host }), 1);
    assert.equal(sampleValue(text, 'rest_client_requests_total', { code: '200', method: 'GET', host }), 2);
    assert.equal(sampleValue(text, 'rest_client_requests_total', { code: '200', method: 'PATCH', host }), 1);
    assert.equal(parseSamples(text).filter((s) => s.name === 'rest_client_requests_total').length, 3, text);
  });

  it('counts a request that got no response as code <error>, once', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedHost = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const metrics = createMetrics();
    const stop = countHttpClientRequests(metrics, (h) => h === closedHost);
    try {
      await get(`http://${closedHost}/`);
      await fetch(`http://${closedHost}/`).catch(() => undefined);
    } finally {
      stop();
    }
    const text = await metrics.registry.metrics();
    assert.equal(sampleValue(text, 'rest_client_requests_total', { code: '<error>', method: 'GET', host: closedHost }), 2);
  });
});
