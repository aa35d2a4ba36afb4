// Raw HTTP to the Kubernetes API server for what the runtime does itself (paginated lists, long-lived
// watches, leases, apply and status patches): kubeconfig credentials, keep-alive, deadlines.
import type { KubeConfig } from '@kubernetes/client-node';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';

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

  constructor(code: number, status: Status, method: string, path: string) {
    super(`${method} ${path}: ${code} ${status.reason ?? ''}${status.message ? `: ${status.message}` : ''}`.trim());
    this.code = code;
    this.status = status;
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
  signal?: AbortSignal;
  /** Deadline for the whole answer; watches pass none. */
  timeoutMs?: number;
}

export class KubeHttp {
  readonly server: string;
  private options: Promise<RequestOptions>;
  private readonly secure: boolean;
  private readonly kubeConfig: KubeConfig;

  constructor(kubeConfig: KubeConfig) {
    this.kubeConfig = kubeConfig;
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/$/, '');
    this.secure = this.server.startsWith('https:');
    this.options = this.requestOptions();
  }

  private async requestOptions(): Promise<RequestOptions> {
    const options: RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const agentOptions = {
      keepAlive: true,
      maxSockets: 64,
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      rejectUnauthorized: options.rejectUnauthorized,
      servername: options.servername,
    };
    options.agent = this.secure ? new HttpsAgent(agentOptions) : new HttpAgent({ keepAlive: true, maxSockets: 64 });
    return options;
  }

  private url(path: string, query: RequestParams['query'] = {}): URL {
    const url = new URL(`${this.server}${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    return url;
  }

  /** Sends a request and resolves with the response stream (any status). */
  async open(method: string, path: string, params: RequestParams = {}): Promise<IncomingMessage> {
    const base = await this.options;
    const url = this.url(path, params.query);
    const payload = params.body === undefined ? undefined : Buffer.from(JSON.stringify(params.body));
    const headers: Record<string, string> = { ...(base.headers as Record<string, string> | undefined), Accept: 'application/json' };
    if (payload) {
      headers['Content-Type'] = params.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const send = this.secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { ...base, method, headers, signal: params.signal }, resolve);
      if (params.timeoutMs) {
        req.setTimeout(params.timeoutMs, () =>
          req.destroy(new Error(`${method} ${url.pathname}: no answer within ${params.timeoutMs} ms`)),
        );
      }
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** A JSON request; a non-2xx answer throws KubeApiError. */
  async json<T>(method: string, path: string, params: RequestParams = {}): Promise<T> {
    const res = await this.open(method, path, { timeoutMs: 30_000, ...params });
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300) throw new KubeApiError(code, parseStatus(text), method, path);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
