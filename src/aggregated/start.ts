// Starts the aggregated API server: its serving certificate (Secret), the front-proxy trust, the
// APIService caBundle, and the HTTPS listener, with the Coder backend of the mode.
import type { KubeHttp } from '../runtime/kube-http.ts';
import type { Logger } from '../runtime/logger.ts';
import { ApiServiceCaBundle } from './apiservice-ca.ts';
import { Authenticator } from './authenticate.ts';
import { Authorizer } from './authorize.ts';
import type { CoderBackend } from './backend.ts';
import { FrontProxyTrustSource } from './front-proxy-trust.ts';
import { NamespaceStates } from './namespace-state.ts';
import { AggregatedServer } from './server.ts';
import { ensureServingCert } from './serving-cert.ts';
import { templateStorage } from './template-storage.ts';
import { templateVersionStorage } from './template-version-storage.ts';
import { workspaceStorage } from './workspace-storage.ts';

export interface AggregatedApiServerInput {
  http: KubeHttp;
  logger: Logger;
  /** Where the serving certificate Secret lives: the operator's own namespace. */
  namespace: string;
  backend: CoderBackend;
  bindAddress: string;
  port: number;
}

export interface RunningAggregatedApiServer {
  port: number;
  stop(): Promise<void>;
}

export async function startAggregatedApiServer(input: AggregatedApiServerInput): Promise<RunningAggregatedApiServer> {
  const logger = input.logger.child({ component: 'aggregated-apiserver' });
  const cert = await ensureServingCert(input.http, input.namespace);
  let server: AggregatedServer | undefined;
  const trust = new FrontProxyTrustSource(input.http, logger, (t) => server?.updateTls({ ...cert, clientCAs: t.caPem }));
  await trust.start();
  const templates = templateStorage(input.backend);
  server = new AggregatedServer({
    authenticator: new Authenticator(input.http, () => trust.current),
    authorizer: new Authorizer(input.http),
    namespaces: new NamespaceStates(input.http),
    storages: [workspaceStorage(input.backend), templates, templateVersionStorage(input.backend, templates)],
    servedNamespaces: () => input.backend.namespaces(),
    logger,
  });
  const port = await server.listen(input.bindAddress, input.port, { ...cert, clientCAs: trust.current?.caPem });
  const caBundle = new ApiServiceCaBundle(input.http, logger, cert.cert);
  caBundle.start();
  logger.info({ port }, 'aggregated API server aggregation.coder.com/v1alpha1 listening');
  return {
    port,
    async stop() {
      caBundle.stop();
      trust.stop();
      await server.close();
    },
  };
}
