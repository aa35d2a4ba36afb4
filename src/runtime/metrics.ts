// Prometheus metrics with controller-runtime's and client-go's names, and the /metrics endpoint.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from './prom-client.ts';
import { requestPath, sendText, serveHttp, type HttpEndpoint } from './http-endpoint.ts';
import type { MetricsVerdict } from './metrics-auth.ts';

export interface OperatorMetrics {
  registry: Registry;
  /** result: success | error | requeue | requeue_after */
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  reconcileTime: Histogram<'controller'>;
  workqueueDepth: Gauge<'name'>;
  workqueueAdds: Counter<'name'>;
  workqueueRetries: Counter<'name'>;
  workqueueQueueDuration: Histogram<'name'>;
  workqueueWorkDuration: Histogram<'name'>;
  restClientRequests: Counter<'code' | 'method' | 'host'>;
  leaderElectionMasterStatus: Gauge<'name'>;
  /** reason: queue_full | write_failed */
  eventsDropped: Counter<'reason'>;
}

// The same buckets as controller-runtime, so dashboards built for Go operators read ours unchanged.
const reconcileTimeBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5,
  4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
// 10 ns to 1000 s, a decade per bucket, as client-go's workqueue metrics.
const workqueueDurationBuckets = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));

/** A fresh registry with every operator metric and Node's default process metrics. */
export function createMetrics(): OperatorMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics(registry);
  return {
    registry,
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'] as const,
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'] as const,
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'] as const,
      buckets: reconcileTimeBuckets,
      registers,
    }),
    workqueueDepth: new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name'] as const,
      registers,
    }),
    workqueueAdds: new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'] as const,
      registers,
    }),
    workqueueRetries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'] as const,
      registers,
    }),
    workqueueQueueDuration: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'] as const,
      buckets: workqueueDurationBuckets,
      registers,
    }),
    workqueueWorkDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name'] as const,
      buckets: workqueueDurationBuckets,
      registers,
    }),
    restClientRequests: new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests to the Kubernetes API server, partitioned by status code, method, and host',
      labelNames: ['code', 'method', 'host'] as const,
      registers,
    }),
    leaderElectionMasterStatus: new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'] as const,
      registers,
    }),
    eventsDropped: new Counter({
      name: 'coder_k8s_events_dropped_total',
      help: 'Events not written to the API server, by reason: queue_full (too many waiting) or write_failed',
      labelNames: ['reason'] as const,
      registers,
    }),
  };
}

/** How /metrics is protected: served over TLS, to callers the authorizer lets in (MetricsAuthorizer). */
export interface MetricsSecurity {
  tls: { cert: string; key: string };
  authorizer: { check(authorization: string | undefined): Promise<MetricsVerdict> };
}

/**
 * Serves GET /metrics in the Prometheus text format; "0" disables it (undefined). With `security`, over
 * HTTPS to authorised callers only (401 without a valid token, 403 without `get` on /metrics); without
 * it, plain HTTP to anyone, which the flags allow on a loopback address only.
 */
export function startMetricsServer(address: string, registry: Registry, security?: MetricsSecurity): Promise<HttpEndpoint | undefined> {
  return serveHttp(
    address,
    async (request, response) => {
      if (request.method !== 'GET' || requestPath(request) !== '/metrics') {
        sendText(response, 404, '404 page not found\n');
        return;
      }
      if (security) {
        const verdict = await security.authorizer.check(request.headers.authorization);
        if (verdict.status === 401) return sendText(response, 401, 'Unauthorized\n');
        if (verdict.status === 403) return sendText(response, 403, `Forbidden: ${verdict.reason}\n`);
        if (verdict.status === 500) return sendText(response, 500, 'cannot check the caller; try again\n');
      }
      sendText(response, 200, await registry.metrics(), registry.contentType);
    },
    security?.tls,
  );
}
