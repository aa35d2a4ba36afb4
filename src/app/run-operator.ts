// `coder-k8s --app=controller` and `--app=all`: check the CRDs, start probes and metrics, run the
// controllers (as leader), in `all` also the aggregated API server (every replica, once the caches have
// synced), and on SIGTERM or SIGINT drain in-flight reconciles, give up the lease and exit 0.
// `--app=aggregated-apiserver` runs the aggregated API server alone (run-aggregated-apiserver.ts).
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { allResources, coderControlPlaneResource } from '../../generated/clients/index.ts';
import { controllerSetups } from '../controllers/index.ts';
import { CoderFacts } from '../controllers/shared/coder-facts.ts';
import { createOperatorMetrics } from '../controllers/shared/metrics.ts';
import type { ControllerDeps, OperatorAccessBackend } from '../controllers/shared/deps.ts';
import type { CoderCallObserver } from '../coder/call-outcome.ts';
import { coderClientFactory, type CoderClientFor } from '../controlplane/coder-client.ts';
import { EventRecorder } from '../runtime/events.ts';
import { createLogger, type Logger } from '../runtime/logger.ts';
import { Manager } from '../runtime/manager.ts';
import { countHttpClientRequests } from '../runtime/http-client-metrics.ts';
import { createMetrics, startMetricsServer } from '../runtime/metrics.ts';
import { MetricsAuthorizer } from '../runtime/metrics-auth.ts';
import { metricsServingCert, reloadMetricsCert } from '../runtime/metrics-tls.ts';
import { startProbeServer } from '../runtime/probes.ts';
import { kubeconfigTokenFile } from '../runtime/token-file.ts';
import { apiServerStartupError } from './api-server-errors.ts';
import { loadConnection, loadKubeConfig, ownNamespace } from './kube-connection.ts';
import { StartupError } from '../runtime/startup-error.ts';
import type { OperatorOptions } from './options.ts';
import { missingCrds, missingCrdsMessage } from './required-crds.ts';
import { checkShardSelector } from './shard-selector.ts';
import { builtinResources } from '../runtime/resource.ts';
import type { RunningAggregatedApiServer } from '../aggregated/start.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';

const eventFlushOnShutdownMs = 5_000;

/** The operator-access bootstrap writes Coder's database directly: it loads, with its PostgreSQL client, once a control plane needs it. */
const operatorAccessModule = () => import('../coder/operator-access/index.ts');
const operatorAccess: OperatorAccessBackend = {
  ensure: async (input) => (await operatorAccessModule()).ensureOperatorToken(input),
  revoke: async (input) => (await operatorAccessModule()).revokeOperatorToken(input),
  check: async (input) => (await operatorAccessModule()).checkOperatorToken(input),
};

/** Coder clients for the controllers: each control plane's Service, unless the test-only flag names a loopback URL. No environment variable can redirect them. */
export function operatorCoderClients(
  options: Pick<OperatorOptions, 'testOnlyCoderUrl'>,
  logger: Logger,
  onCall?: CoderCallObserver,
): CoderClientFor {
  return coderClientFactory(logger, options.testOnlyCoderUrl, undefined, onCall);
}

function leaseNamespace(options: OperatorOptions): string {
  const namespace = options.leaderElectionNamespace ?? ownNamespace();
  if (!namespace) {
    throw new StartupError(
      'leader election needs a namespace for its Lease: set POD_NAMESPACE, ' +
        'pass --leader-election-namespace, or run in a pod (or pass --leader-elect=false for a single replica)',
    );
  }
  return namespace;
}

export async function runOperator(options: OperatorOptions, version: string): Promise<number> {
  if (options.app === 'mcp-http') {
    const logger: Logger = createLogger({ level: options.logLevel });
    const { runMcpServer } = await import('./run-mcp.ts');
    return runMcpServer(options, version, { loadKubeConfig, coderClient: operatorCoderClients(options, logger), logger });
  }
  if (options.app === 'mcp-stdio') {
    // stdout carries the protocol: every log line goes to stderr.
    const logger: Logger = createLogger({ level: options.logLevel, destination: process.stderr });
    const { runMcpStdio } = await import('./run-mcp-stdio.ts');
    return runMcpStdio(options, version, { loadKubeConfig, coderClient: operatorCoderClients(options, logger), logger });
  }
  if (options.app === 'aggregated-apiserver') {
    const { runAggregatedApiServer } = await import('./run-aggregated-apiserver.ts');
    return runAggregatedApiServer(options, version);
  }
  const withApiServer = options.app === 'all';
  const logger: Logger = createLogger({ level: options.logLevel });
  const kubeConfig = loadConnection(options.kubeconfig);
  const metrics = createMetrics();
  const operatorMetrics = createOperatorMetrics(metrics.registry);
  const onCoderCall = operatorMetrics.observeCoderCall;
  const apiHost = new URL(kubeConfig.getCurrentCluster()!.server).host;
  const stopCounting = countHttpClientRequests(metrics, (host) => host === apiHost);

  const identity = `${hostname()}_${randomUUID()}`;
  let exiting = false;
  const manager = new Manager({
    kubeConfig,
    tokenFile: kubeconfigTokenFile(options.kubeconfig),
    logger,
    metrics,
    namespaces: options.watchNamespaces,
    concurrency: options.maxConcurrentReconciles,
    requestBudget: { qps: options.kubeApiQps, burst: options.kubeApiBurst },
    leaderElection: options.leaderElect
      ? { namespace: leaseNamespace(options), identity, ...(options.leaderElectionId ? { name: options.leaderElectionId } : {}) }
      : false,
    ...(options.selector ? { shardSelector: options.selector } : {}),
    shutdownTimeoutMs: options.gracefulShutdownTimeoutMs,
    onLeadershipLost: () => {
      // Another replica may already reconcile: stop at once, and restart with clean caches.
      logger.fatal('leadership lost; exiting');
      process.exit(1);
    },
  });
  const missing = await missingCrds(manager.writer, allResources).catch((err: unknown) => {
    throw apiServerStartupError(kubeConfig.getCurrentCluster()!.server, err) ?? err;
  });
  if (missing.length) throw new StartupError(missingCrdsMessage(missing));
  if (options.selector) await checkShardSelector(manager.http, coderControlPlaneResource, options.selector);
  const deps: ControllerDeps = {
    writer: manager.writer,
    events: new EventRecorder(manager.http, {
      controller: 'coder-k8s.coder.com',
      instance: identity,
      logger,
      onDropped: (reason) => metrics.eventsDropped.inc({ reason }),
    }),
    logger,
    now: () => new Date(),
    coderClient: operatorCoderClients(options, logger, onCoderCall),
    metrics: operatorMetrics,
    operatorAccess,
    coderResyncMs: options.coderResyncPeriodMs,
    coderFacts: new CoderFacts({
      buildInfoTtlMs: options.coderResyncPeriodMs,
      entitlementsTtlMs: Math.min(2 * 60_000, options.coderResyncPeriodMs),
    }),
  };
  for (const setup of controllerSetups) setup(manager, deps);
  let apiServer: RunningAggregatedApiServer | undefined;
  const apiServerNamespace = withApiServer ? ownNamespace() : undefined;
  if (withApiServer && !apiServerNamespace)
    throw new StartupError(
      '--app=all: the aggregated API server needs its namespace for its serving certificate: set POD_NAMESPACE or run in a pod',
    );
  // The aggregated API server's code is loaded only in the mode that serves it.
  let startApiServer: (() => Promise<RunningAggregatedApiServer>) | undefined;
  if (withApiServer) {
    const [{ controlPlaneBackend }, { startAggregatedApiServer }] = await Promise.all([
      import('../aggregated/backend.ts'),
      import('../aggregated/start.ts'),
    ]);
    const backend = controlPlaneBackend(
      { controlPlanes: manager.cache<CoderControlPlane>(coderControlPlaneResource), secrets: manager.cache(builtinResources.secret) },
      { coderClient: coderClientFactory(logger, options.testOnlyCoderUrl, options.aggregated.coderRequestTimeoutMs, onCoderCall) },
    );
    startApiServer = () =>
      startAggregatedApiServer({
        http: manager.http,
        logger,
        namespace: apiServerNamespace!,
        backend,
        bindAddress: options.aggregated.bindAddress,
        port: options.aggregated.securePort,
        inflight: { reads: options.aggregated.maxRequestsInflight, writes: options.aggregated.maxMutatingRequestsInflight },
      });
  }

  const probes = await startProbeServer(options.healthProbeBindAddress, {
    healthz: () => manager.liveness(),
    readyz: () => {
      const caches = manager.readiness();
      if (!withApiServer || apiServer || !caches.ok) return caches;
      return { ok: false, reasons: ['the aggregated API server has not started'] };
    },
  });
  const metricsServer = await startMetricsServer(
    options.metricsBindAddress,
    metrics.registry,
    options.metricsSecure
      ? { tls: metricsServingCert(options.metricsCertDir), authorizer: new MetricsAuthorizer(manager.http) }
      : undefined,
  );
  const stopCertReload =
    metricsServer && options.metricsSecure && options.metricsCertDir
      ? reloadMetricsCert(options.metricsCertDir, metricsServer, {
          onError: (err) => logger.warn({ err: err.message }, 'cannot read the metrics certificate again; serving the previous one'),
        })
      : undefined;
  logger.info(
    {
      version,
      app: options.app,
      identity,
      namespaces: options.watchNamespaces,
      leaderElect: options.leaderElect,
      probes: probes?.port,
      metrics: metricsServer?.port,
      metricsSecure: options.metricsSecure,
    },
    'starting coder-k8s',
  );
  if (options.testOnlyCoderUrl)
    logger.warn({ coderURL: options.testOnlyCoderUrl }, 'tests only: every Coder API call goes to --test-only-coder-url');

  const stopped = new Promise<number>((resolve) => {
    const stop = async (signal: NodeJS.Signals) => {
      if (exiting) return;
      exiting = true;
      logger.info({ signal }, 'shutting down: finishing running reconciles');
      const allReturned = await manager.shutdown();
      // Events the last reconciles recorded are still queued: give them a moment, not more.
      await Promise.race([deps.events.flush(), delay(eventFlushOnShutdownMs, undefined, { ref: false })]);
      await apiServer?.stop();
      await probes?.close();
      stopCertReload?.();
      await metricsServer?.close();
      stopCounting();
      if (!allReturned) {
        // A reconcile that ignored its abort signal may hold the event loop open: do not wait for it.
        logger.error('stopped with reconciles still running past --graceful-shutdown-timeout');
        process.exit(1);
      }
      logger.info('stopped');
      resolve(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await manager.start();
  if (startApiServer) {
    // Every replica serves the API, leader or not, once the caches it reads have synced (manager.start).
    try {
      apiServer = await startApiServer();
    } catch (err) {
      // Nothing may keep the process alive after this: the pod restarts and shows the reason.
      exiting = true;
      await manager.shutdown();
      await probes?.close();
      stopCertReload?.();
      await metricsServer?.close();
      stopCounting();
      throw new StartupError(`--app=all: the aggregated API server did not start: ${(err as Error).message}`);
    }
  }
  return stopped;
}
