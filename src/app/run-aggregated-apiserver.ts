// `coder-k8s --app=aggregated-apiserver`: the aggregated API server alone, on the static Coder backend of
// --coder-url, --coder-session-token (or --coder-session-token-file) and --coder-namespace. Health is served
// on its HTTPS port (/healthz, /readyz). SIGTERM or SIGINT closes it and exits 0.
import { staticBackend } from '../aggregated/backend.ts';
import { startAggregatedApiServer } from '../aggregated/start.ts';
import { KubeHttp } from '../runtime/kube-http.ts';
import { createLogger } from '../runtime/logger.ts';
import { kubeconfigTokenFile } from '../runtime/token-file.ts';
import { StartupError } from '../runtime/startup-error.ts';
import type { OperatorOptions } from './options.ts';
import { loadKubeConfig, ownNamespace } from './kube-connection.ts';

export async function runAggregatedApiServer(options: OperatorOptions, version: string): Promise<number> {
  const logger = createLogger({ level: options.logLevel });
  const kubeConfig = loadKubeConfig(options.kubeconfig);
  const http = new KubeHttp(kubeConfig, { tokenFile: kubeconfigTokenFile(options.kubeconfig) });
  const namespace = ownNamespace();
  if (!namespace)
    throw new StartupError('--app=aggregated-apiserver needs its namespace for its serving certificate: set POD_NAMESPACE or run in a pod');
  const { coderUrl, coderSessionToken, coderSessionTokenFile, coderNamespace, coderRequestTimeoutMs } = options.aggregated;
  let backend;
  try {
    backend = staticBackend({
      url: coderUrl,
      token: coderSessionToken,
      tokenFile: coderSessionTokenFile,
      namespace: coderNamespace,
      timeoutMs: coderRequestTimeoutMs,
      logger,
    });
  } catch (err) {
    throw new StartupError((err as Error).message);
  }
  const server = await startAggregatedApiServer({
    http,
    logger,
    namespace,
    backend,
    bindAddress: options.aggregated.bindAddress,
    port: options.aggregated.securePort,
    inflight: { reads: options.aggregated.maxRequestsInflight, writes: options.aggregated.maxMutatingRequestsInflight },
  }).catch((err: unknown) => {
    throw new StartupError(`--app=aggregated-apiserver: ${(err as Error).message}`);
  });
  logger.info({ version, app: options.app, port: server.port, coderNamespace }, 'starting coder-k8s');
  return new Promise<number>((resolve) => {
    const stop = async (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'shutting down');
      await server.stop();
      logger.info('stopped');
      resolve(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
