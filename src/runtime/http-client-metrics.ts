// Counts every HTTP request the process makes to the API server from Node's diagnostics channels, so
// no client (@kubernetes/client-node, raw https, fetch) has to be wrapped for rest_client_requests_total.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { OperatorMetrics } from './metrics.ts';

/** The code label of a request that got no response (refused, reset, timed out, aborted). */
const errorCode = '<error>';

interface UndiciRequest {
  origin?: unknown;
  method?: string;
}

/**
 * Counts every request to a host for which `isKubernetesHost(host)` is true, `host` being a URL's `host`
 * ("127.0.0.1:6443"; the port is left out when it is the scheme's default). Returns the unsubscribe.
 */
export function countHttpClientRequests(metrics: OperatorMetrics, isKubernetesHost: (host: string) => boolean): () => void {
  // One count per request: the response, or else the first error or close.
  const pending = new WeakMap<object, { host: string; method: string }>();
  const count = (request: object, code: string) => {
    const labels = pending.get(request);
    if (!labels) return;
    pending.delete(request);
    metrics.restClientRequests.inc({ ...labels, code });
  };

  const handlers: Record<string, (message: unknown) => void> = {
    'http.client.request.start': (message) => {
      const request = (message as { request: ClientRequest }).request;
      const host = hostOfClientRequest(request);
      if (!isKubernetesHost(host)) return;
      pending.set(request, { host, method: request.method.toUpperCase() });
      // A request that closes without a response failed, whether or not the error channel saw it (the
      // first count wins). Unlike 'error' or 'response', a 'close' listener changes no behaviour.
      request.once('close', () => count(request, errorCode));
    },
    // Published when the response headers arrive, not when the body ends, so long watches count at once.
    'http.client.response.finish': (message) => {
      const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
      count(request, String(response.statusCode ?? errorCode));
    },
    'http.client.request.error': (message) => count((message as { request: ClientRequest }).request, errorCode),
    // The undici channels cover the global fetch().
    'undici:request:create': (message) => {
      const request = (message as { request: UndiciRequest }).request;
      const host = hostOfOrigin(request.origin);
      if (host === undefined || !isKubernetesHost(host)) return;
      pending.set(request, { host, method: (request.method ?? 'GET').toUpperCase() });
    },
    'undici:request:headers': (message) => {
      const { request, response } = message as { request: object; response: { statusCode?: number } };
      count(request, String(response.statusCode ?? errorCode));
    },
    'undici:request:error': (message) => count((message as { request: object }).request, errorCode),
  };

  for (const [name, handler] of Object.entries(handlers)) subscribe(name, handler);
  return () => {
    for (const [name, handler] of Object.entries(handlers)) unsubscribe(name, handler);
  };
}

/** host[:port] as in a URL's `host`: the Host header Node sets, which omits the scheme's default port. */
function hostOfClientRequest(request: ClientRequest): string {
  const header = request.getHeader('host');
  if (typeof header === 'string' && header !== '') return header;
  return request.host;
}

function hostOfOrigin(origin: unknown): string | undefined {
  if (origin === undefined || origin === null) return undefined;
  try {
    return new URL(String(origin)).host;
  } catch {
    return undefined;
  }
}
