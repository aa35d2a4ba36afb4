// Starts the aggregated API server: its serving certificate (Secret), the front-proxy trust, the
// APIService caBundle, and the HTTPS listener, with the Coder backend of the mode.
import type { KubeHttp } from '../runtime/kube-http.ts';
import type { Logger } from '../runtime/logger.ts';
import { ApiServiceCaBundle } from './pki/apiservice-ca.ts';
import { Authenticator } from './auth/authenticate.ts';
import { Authorizer } from './auth/authorize.ts';
import type { CoderBackend } from './backend.ts';
import { FrontProxyTrustSource } from './auth/front-proxy-trust.ts';
import { NamespaceStates } from './server/namespace-state.ts';
import { AggregatedServer } from './server/server.ts';
import { ensureServingCert } from './pki/serving-cert.ts';
import { ServingCertWatch } from './pki/serving-cert-watch.ts';
import { CoderTemplateStorage } from './storage/codertemplate/template-storage.ts';
import { CoderTemplateVersionStorage } from './storage/codertemplateversion/template-version-storage.ts';
import { CoderWorkspaceStorage } from './storage/coderworkspace/workspace-storage.ts';

export interface AggregatedApiServerInput {
  http: KubeHttp;
  logger: Logger;
  /** Where the serving certificate Secret lives: the operator's own namespace. */
  namespace: string;
  backend: CoderBackend;
  bindAddress: string;
  port: number;
  /** Reads and writes served at once before 429. */
  inflight: { reads: number; writes: number };
}

export interface RunningAggregatedApiServer {
  port: number;
  stop(): Promise<void>;
}

export async function startAggregatedApiServer(input: AggregatedApiServerInput): Promise<RunningAggregatedApiServer> {
  const logger = input.logger.child({ component: 'aggregated-apiserver' });
  let serving = await ensureServingCert(input.http, logger, input.namespace);
  let server: AggregatedServer | undefined;
  const trust = new FrontProxyTrustSource(input.http, logger, (t) =>
    server?.updateTls({ cert: serving.cert, key: serving.key, clientCAs: t.caPem }),
  );
  await trust.start();
  const templates = new CoderTemplateStorage(input.backend, { logger });
  server = new AggregatedServer({
    authenticator: new Authenticator(input.http, () => trust.current),
    authorizer: new Authorizer(input.http),
    namespaces: new NamespaceStates(input.http),
    storages: [new CoderWorkspaceStorage(input.backend), templates, new CoderTemplateVersionStorage(input.backend, templates)],
    servedNamespaces: () => input.backend.namespaces(),
    inflight: input.inflight,
    logger,
  });
  const port = await server.listen(input.bindAddress, input.port, {
    cert: serving.cert,
    key: serving.key,
    clientCAs: trust.current?.caPem,
  });
  const caBundle = new ApiServiceCaBundle(input.http, logger, serving.caBundle);
  caBundle.start();
  const certWatch = new ServingCertWatch(input.http, logger, input.namespace, serving, async (renewed) => {
    // The aggregator trusts the new certificate first, then it is served.
    await caBundle.use(renewed.caBundle);
    serving = renewed;
    server.updateTls({ cert: renewed.cert, key: renewed.key, clientCAs: trust.current?.caPem });
  });
  certWatch.start();
  logger.info({ port }, 'aggregated API server aggregation.coder.com/v1alpha1 listening');
  return {
    port,
    async stop() {
      await Promise.all([trust.stop(), certWatch.stop(), caBundle.stop()]);
      await server.close();
    },
  };
}
