// `coder-k8s --app=controller`: check the CRDs, start probes and metrics, run the controllers (as
// leader), and on SIGTERM or SIGINT drain in-flight reconciles, give up the lease and exit 0.
import { KubeConfig } from '@kubernetes/client-node';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { allResources } from '../../generated/clients/index.ts';
import { controllerSetups } from '../controllers/index.ts';
import { coderClientFactory, type ControllerDeps } from '../controllers/shared/deps.ts';
import { checkOperatorToken, ensureOperatorToken, revokeOperatorToken } from '../coder/operator-access/index.ts';
import { EventRecorder } from '../runtime/events.ts';
import { createLogger, type Logger } from '../runtime/logger.ts';
import { Manager } from '../runtime/manager.ts';
import { countHttpClientRequests } from '../runtime/http-client-metrics.ts';
import { createMetrics, startMetricsServer } from '../runtime/metrics.ts';
import { startProbeServer } from '../runtime/probes.ts';
import { StartupError } from './errors.ts';
import type { OperatorOptions } from './options.ts';
import { missingCrds, missingCrdsMessage } from './required-crds.ts';

const serviceAccountNamespaceFile = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

function loadKubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  if (!kc.getCurrentCluster())
    throw new StartupError('no Kubernetes cluster configured: pass --kubeconfig, set KUBECONFIG, or run in a pod');
  return kc;
}

function leaseNamespace(options: OperatorOptions): string {
  const namespace =
    options.leaderElectionNamespace ??
    process.env.POD_NAMESPACE ??
    (existsSync(serviceAccountNamespaceFile) ? readFileSync(serviceAccountNamespaceFile, 'utf8').trim() : undefined);
  if (!namespace) {
    throw new StartupError(
      'leader election needs a namespace for its Lease: set POD_NAMESPACE, ' +
        'pass --leader-election-namespace, or run in a pod (or pass --leader-elect=false for a single replica)',
    );
  }
  return namespace;
}

export async function runOperator(options: OperatorOptions, version: string): Promise<number> {
  if (options.app !== 'controller') {
    const missing = options.app === 'mcp-http' ? 'the MCP HTTP server' : 'the aggregated API server';
    throw new StartupError(`--app=${options.app}: ${missing} is not built yet in this version; run with --app=controller`);
  }
  const logger: Logger = createLogger({ level: options.logLevel });
  const kubeConfig = loadKubeConfig(options.kubeconfig);
  const metrics = createMetrics();
  const apiHost = new URL(kubeConfig.getCurrentCluster()!.server).host;
  const stopCounting = countHttpClientRequests(metrics, (host) => host === apiHost);

  const identity = `${hostname()}_${randomUUID()}`;
  let exiting = false;
  const manager = new Manager({
    kubeConfig,
    logger,
    metrics,
    namespaces: options.watchNamespaces,
    concurrency: options.maxConcurrentReconciles,
    leaderElection: options.leaderElect ? { namespace: leaseNamespace(options), identity } : false,
    shutdownTimeoutMs: options.gracefulShutdownTimeoutMs,
    onLeadershipLost: () => {
      // Another replica may already reconcile: stop at once, and restart with clean caches.
      logger.fatal('leadership lost; exiting');
      process.exit(1);
    },
  });
  const missing = await missingCrds(manager.writer, allResources);
  if (missing.length) throw new StartupError(missingCrdsMessage(missing));
  const deps: ControllerDeps = {
    writer: manager.writer,
    events: new EventRecorder(manager.http, { controller: 'coder-k8s.coder.com', instance: identity, logger }),
    logger,
    now: () => new Date(),
    coderClient: coderClientFactory(logger, process.env.CODER_K8S_CODER_URL_OVERRIDE || undefined),
    operatorAccess: { ensure: ensureOperatorToken, revoke: revokeOperatorToken, check: checkOperatorToken },
  };
  for (const setup of controllerSetups) setup(manager, deps);

  const probes = await startProbeServer(options.healthProbeBindAddress, {
    healthz: () => manager.liveness(),
    readyz: () => manager.readiness(),
  });
  const metricsServer = await startMetricsServer(options.metricsBindAddress, metrics.registry);
  logger.info(
    {
      version,
      app: options.app,
      identity,
      namespaces: options.watchNamespaces,
      leaderElect: options.leaderElect,
      probes: probes?.port,
      metrics: metricsServer?.port,
    },
    'starting coder-k8s',
  );

  const stopped = new Promise<number>((resolve) => {
    const stop = async (signal: NodeJS.Signals) => {
      if (exiting) return;
      exiting = true;
      logger.info({ signal }, 'shutting down: finishing running reconciles');
      await manager.shutdown();
      await probes?.close();
      await metricsServer?.close();
      stopCounting();
      logger.info('stopped');
      resolve(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await manager.start();
  return stopped;
}
