// Raw HTTP to the Kubernetes API server for what the runtime does itself (paginated lists, long-lived
// watches, leases, apply and status patches): kubeconfig credentials, keep-alive, deadlines, a request
// budget, and API Priority and Fairness (a 429 is waited out as the server asks, not an error).
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import { createSecureContext } from 'node:tls';
import { abortableSleep } from './abortable-sleep.ts';
import { http } from './builtins.ts';
import type { KubeConnectionConfig } from './kube-config.ts';
import type { RequestBudget } from './request-budget.ts';
import { TokenFile, tokenRefreshMs } from './token-file.ts';

export interface Status {
  kind?: 'Status';
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: { field?: string; message?: string; reason?: string }[] };
}

/** An error answer of the API server; `code` is the HTTP status, as on @kubernetes/client-node errors. */
export class KubeApiError extends Error {
  readonly code: number;
  readonly status: Status;
  readonly method: string;
  readonly path: string;

  constructor(code: number, status: Status, method: string, path: string) {
    super(`${method} ${path}: ${code} ${status.reason ?? ''}${status.message ? `: ${status.message}` : ''}`.trim());
    this.code = code;
    this.status = status;
    this.method = method;
    this.path = path;
    this.name = 'KubeApiError';
  }
}

/** An error body: a Status object, or (e.g. "404 page not found" from discovery) plain text. */
export function parseStatus(text: string): Status {
  if (!text) return {};
  try {
    return JSON.parse(text) as Status;
  } catch {
    return { message: text.trim().slice(0, 200) };
  }
}

export function errorCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

export const isNotFound = (err: unknown) => errorCode(err) === 404;
export const isConflict = (err: unknown) => errorCode(err) === 409;
export const isGone = (err: unknown) => errorCode(err) === 410;

export interface RequestParams {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** The Accept header; application/json when unset (a metadata-only list or watch asks for PartialObjectMetadata). */
  accept?: string;
  signal?: AbortSignal;
  /**
   * Deadline from sending the request to the last byte of the answer (not an idle timeout: a body that
   * trickles in fails at the deadline). json() defaults to 30 s; open() covers the headers only, and
   * watches, which stream past it, pass none and bound themselves (watch-stream.ts).
   */
  timeoutMs?: number;
}

/** The default deadline of a JSON request to the API server, headers and body together. */
const defaultRequestTimeoutMs = 30_000;
/** How often a request the API server turned away with 429 (Priority and Fairness) is sent again, as client-go. */
const maxThrottledRetries = 10;
/** The longest Retry-After honoured; a longer one is waited this long and asked again. */
const maxRetryAfterMs = 10_000;

/** Retry-After in seconds (1 when absent or unreadable, as the API server's default), jittered up to half again. */
export function retryAfterMs(header: string | string[] | undefined, random = Math.random): number {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  const base = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, maxRetryAfterMs) : 1000;
  return base * (1 + random() / 2);
}

/** A request to the API server that had no complete answer within its deadline. */
export class KubeTimeoutError extends Error {
  override readonly name = 'KubeTimeoutError';
  constructor(method: string, path: string, timeoutMs: number) {
    super(`${method} ${path}: no complete answer within ${timeoutMs} ms`);
  }
}

export interface KubeHttpOptions {
  /**
   * A file holding the bearer token, read again every `tokenRefreshMs`. Defaults to the in-cluster
   * ServiceAccount token file when the kubeconfig came from the pod; pass a kubeconfig's tokenFile
   * (kubeconfigTokenFile) since the kubeconfig loader keeps no path of it.
   */
  tokenFile?: string;
  tokenRefreshMs?: number;
  /** The client-side request budget every request (watches too) waits for; none when unset. */
  budget?: RequestBudget;
}

export class KubeHttp {
  readonly server: string;
  private options: Promise<RequestOptions>;
  private readonly secure: boolean;
  private readonly kubeConfig: KubeConnectionConfig;
  private readonly tokenFile?: TokenFile;
  private readonly budget?: RequestBudget;

  constructor(kubeConfig: KubeConnectionConfig, options: KubeHttpOptions = {}) {
    this.kubeConfig = kubeConfig;
    this.budget = options.budget;
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/$/, '');
    this.secure = this.server.startsWith('https:');
    const inClusterTokenFile = (kubeConfig.getCurrentUser()?.authProvider?.config as { tokenFile?: string } | undefined)?.tokenFile;
    const tokenFile = options.tokenFile ?? inClusterTokenFile;
    if (tokenFile) this.tokenFile = new TokenFile(tokenFile, options.tokenRefreshMs ?? tokenRefreshMs);
    this.options = this.requestOptions();
  }

  private async requestOptions(): Promise<RequestOptions> {
    const options: RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const { ca, cert, key, ...rest } = options;
    if (!this.secure) return { ...rest, agent: new http.Agent({ keepAlive: true, maxSockets: 64 }) };
    // One TLS context for every connection: given the PEMs instead, each new connection parses them again.
    const secureContext = createSecureContext({ ca, cert, key });
    const { rejectUnauthorized, servername } = options;
    return { ...rest, agent: new HttpsAgent({ keepAlive: true, maxSockets: 64, secureContext, rejectUnauthorized, servername }) };
  }

  private url(path: string, query: RequestParams['query'] = {}): URL {
    const url = new URL(`${this.server}${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    return url;
  }

  /** Sends a request and resolves with the response stream (any status) once its headers arrive. */
  async open(method: string, path: string, params: RequestParams = {}): Promise<IncomingMessage> {
    const base = await this.options;
    await this.budget?.take(params.signal);
    params.signal?.throwIfAborted();
    const url = this.url(path, params.query);
    const payload = params.body === undefined ? undefined : Buffer.from(JSON.stringify(params.body));
    const headers: Record<string, string> = {
      ...(base.headers as Record<string, string> | undefined),
      Accept: params.accept ?? 'application/json',
    };
    if (this.tokenFile) headers.Authorization = `Bearer ${await this.tokenFile.token()}`;
    if (payload) {
      headers['Content-Type'] = params.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const send = this.secure ? httpsRequest : http.request;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const req = send(url, { ...base, method, headers, signal: params.signal }, (res) => {
        clearTimeout(timer);
        resolve(res);
      });
      if (params.timeoutMs) {
        const timeoutMs = params.timeoutMs;
        timer = setTimeout(() => req.destroy(new KubeTimeoutError(method, url.pathname, timeoutMs)), timeoutMs);
      }
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end(payload);
    });
  }

  /** A JSON request; a non-2xx answer throws KubeApiError, no complete answer by the deadline KubeTimeoutError. */
  async json<T>(method: string, path: string, params: RequestParams = {}): Promise<T> {
    const timeoutMs = params.timeoutMs ?? defaultRequestTimeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new KubeTimeoutError(method, path, timeoutMs)), timeoutMs);
    const signal = params.signal ? AbortSignal.any([params.signal, deadline.signal]) : deadline.signal;
    try {
      for (let attempt = 0; ; attempt++) {
        const res = await this.open(method, path, { ...params, signal, timeoutMs: undefined });
        const text = await readText(res, signal);
        const code = res.statusCode ?? 0;
        // Priority and Fairness turned the request away before doing anything: safe to send again.
        if (code === 429 && attempt < maxThrottledRetries) {
          await abortableSleep(retryAfterMs(res.headers['retry-after']), signal);
          continue;
        }
        if (code < 200 || code >= 300) throw new KubeApiError(code, parseStatus(text), method, path);
        return (text ? JSON.parse(text) : undefined) as T;
      }
    } catch (err) {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The whole body as text; `signal` ends the read (and the connection) at once. */
export async function readText(res: IncomingMessage, signal?: AbortSignal): Promise<string> {
  const stop = () => res.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}
