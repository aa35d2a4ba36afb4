// Which Coder serves a Kubernetes namespace. In --app=all: the one eligible
// CoderControlPlane of the namespace, through the controllers' caches and kit (its in-cluster Service,
// same-origin rule, the operator token Secret it controls). In --app=aggregated-apiserver: the static
// --coder-url and --coder-session-token (or --coder-session-token-file), for --coder-namespace only.
import { readFileSync } from 'node:fs';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import type { Cache } from '../runtime/cache.ts';
import { CoderClient } from '../coder/client.ts';
import { InvalidCoderTokenError } from '../coder/errors.ts';
import { mayServeNamespace, servingControlPlane } from '../controlplane/serving-control-plane.ts';
import { resolveControlPlane, type ControlPlaneCaches } from '../controlplane/access.ts';
import type { CoderClientFor } from '../controlplane/coder-client.ts';
import type { Logger } from '../runtime/logger.ts';
import { badRequest, unavailable } from './status.ts';

export interface CoderTarget {
  client: CoderClient;
  /** Whose operator token the calls carry, for messages: `CoderControlPlane "ns/name"`. */
  label: string;
}

export interface CoderBackend {
  /** The Coder serving `namespace`; throws a 503/400 Status when there is none or more than one. */
  forNamespace(namespace: string): CoderTarget;
  /** The namespaces a list across all namespaces covers, sorted. */
  namespaces(): string[];
}

/** The kit's caches, with the listing that finding a namespace's one control plane needs. */
type BackendCaches = ControlPlaneCaches & { controlPlanes: Pick<Cache<CoderControlPlane>, 'get' | 'list'> };

/** `deps.coderClient` builds clients with --coder-request-timeout (see coderClientFactory). */
export function controlPlaneBackend(caches: BackendCaches, deps: { coderClient: CoderClientFor }): CoderBackend {
  return {
    forNamespace(namespace) {
      const choice = servingControlPlane(caches.controlPlanes.list(namespace));
      if (choice.kind === 'none')
        throw unavailable(
          `no eligible CoderControlPlane instances found in namespace "${namespace}": the namespace is served by its one ` +
            'CoderControlPlane whose operator access is ready (status.operatorAccessReady true, with an operator token ' +
            'Secret and a URL; spec.operatorAccess not disabled; not being deleted; no "." in its name). See why with ' +
            `kubectl get codercontrolplanes -n ${namespace} -o jsonpath='{.items[*].status.conditions[?(@.type=="OperatorAccessReady")].message}'`,
        );
      if (choice.kind === 'several')
        throw badRequest(`multiple eligible CoderControlPlane instances in namespace "${namespace}"; multi-instance support is planned`);
      const name = choice.controlPlane.metadata.name!;
      const access = resolveControlPlane(deps, caches, namespace, { name });
      if (!access.usable) throw unavailable(access.message);
      return { client: access.client, label: `CoderControlPlane "${namespace}/${name}"` };
    },
    namespaces() {
      return [
        ...new Set(
          caches.controlPlanes
            .list()
            .filter(mayServeNamespace)
            .map((cp) => cp.metadata.namespace!),
        ),
      ].sort();
    },
  };
}

export interface StaticBackendOptions {
  url?: string;
  token?: string;
  /** --coder-session-token-file: the token is read from it at start and again about once a minute. */
  tokenFile?: string;
  namespace?: string;
  timeoutMs: number;
  logger: Logger;
}

const tokenFileRereadMs = 60_000;

function readTokenFile(path: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new Error(`--coder-session-token-file: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!token) throw new Error(`--coder-session-token-file: ${path} is empty`);
  return token;
}

/** The static backend, or why it cannot start. Both empty: every request is a 503. */
export function staticBackend(options: StaticBackendOptions): CoderBackend {
  const { url, tokenFile, namespace, timeoutMs, logger } = options;
  const token = tokenFile ? readTokenFile(tokenFile) : options.token;
  if (!url && !token) {
    const message =
      'coder client provider is not configured: missing coder URL and coder session token; configure --coder-url and --coder-session-token (or --coder-session-token-file)';
    logger.warn(message);
    return {
      forNamespace() {
        throw unavailable(message);
      },
      namespaces: () => [],
    };
  }
  if (!url || !token)
    throw new Error(
      `coder client provider is partially configured: ${url ? 'missing --coder-session-token' : 'missing --coder-url'}; configure both`,
    );
  if (!namespace) throw new Error('coder client provider namespace is not configured: configure --coder-namespace');
  const clientFor = (t: string) => {
    try {
      return new CoderClient({ baseURL: url, token: t, timeoutMs, logger: logger.child({ coderNamespace: namespace }) });
    } catch (err) {
      if (!(err instanceof InvalidCoderTokenError)) throw err;
      throw new Error(`${tokenFile ? `--coder-session-token-file: ${tokenFile}` : '--coder-session-token'}: ${err.message}`);
    }
  };
  let current = { token, client: clientFor(token), readAt: Date.now() };
  // A rotated Secret reaches a mounted file within a minute or so; a failed re-read keeps the last token.
  const client = () => {
    if (!tokenFile || Date.now() - current.readAt < tokenFileRereadMs) return current.client;
    try {
      const next = readTokenFile(tokenFile);
      current = next === current.token ? { ...current, readAt: Date.now() } : { token: next, client: clientFor(next), readAt: Date.now() };
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'keeping the last Coder session token');
      current.readAt = Date.now();
    }
    return current.client;
  };
  const label = `the Coder of --coder-namespace "${namespace}"`;
  return {
    forNamespace(requested) {
      if (requested !== namespace)
        throw badRequest(`namespace "${requested}" is not served by this aggregated API server (configured for "${namespace}")`);
      return { client: client(), label };
    },
    namespaces: () => [namespace],
  };
}
