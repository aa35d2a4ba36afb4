// The one HTTP client the operator uses to talk to Coder: typed by generated/coder-api.ts, with a
// timeout on every call, retries with backoff for 429/5xx/network failures, and redirects followed
// only within the Coder URL's origin.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AnyRequestOptions, HttpMethod, Operation, OptionsArg, PathsWith, Schemas, SuccessBody } from './api-types.ts';
import { parseCoderError, removeSecrets } from './error-body.ts';
import { isRetryable } from './error-predicates.ts';
import {
  CoderApiError,
  CoderNetworkError,
  CoderResponseTooLargeError,
  CoderTimeoutError,
  CrossOriginRedirectError,
  InvalidCoderTokenError,
  TooManyRedirectsError,
  crossOriginRedirectMessage,
} from './errors.ts';
import { failedCallOutcome, type CoderCallObserver, type CoderCallOutcome } from './call-outcome.ts';
import { followBuildLogStream, readBuildLogStream, type BuildLog } from './build-log-stream.ts';
import { fetchWithinOrigin } from './redirects.ts';
import { expandPath, parseBaseURL, requestURL, type BaseURL } from './request-url.ts';
import { defaultMaxResponseBytes, errorBodyBytes, excerpt, readBody, readBodyBytes } from './response-body.ts';
import { defaultRetryPolicy, retryDelay, type RetryPolicy } from './retry.ts';

export interface CoderClientLogger {
  warn(obj: object, msg: string): void;
}

export interface CoderClientOptions {
  /** The Coder URL, for example http://coder.coder.svc.cluster.local:80. */
  baseURL: string;
  /** The session token, sent as Coder-Session-Token and only ever to baseURL's origin. */
  token: string;
  /** The most one call may take, retries and their waits included. Default 30000. */
  timeoutMs?: number;
  /** Repeats after a first failed attempt (429, 5xx, network). Default 2, so 3 attempts. */
  retries?: number;
  logger?: CoderClientLogger;
  /** Backoff tuning; the defaults suit a controller (250 ms doubling, at most 10 s per wait). */
  backoff?: { baseDelayMs?: number; maxDelayMs?: number };
  /** Same-origin redirects followed at most. Default 10. */
  maxRedirects?: number;
  /** The largest success body read; a larger one fails the call. Default 4 MiB. */
  maxResponseBytes?: number;
  /** Told of every attempt of every REST call (not the build log websockets), for metrics. */
  onCall?: CoderCallObserver;
}

/** What every convenience call accepts. */
export interface CallOptions {
  /** Ends the call (and its retries) early: it rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

const silentLogger: CoderClientLogger = { warn() {} };

/** Visible ASCII: every Coder session token is made of it (an API key is `<id>-<secret>` of letters and digits). */
const sessionTokenText = /^[\x21-\x7e]+$/;

const signalOnly = (options: CallOptions) => (options.signal ? { signal: options.signal } : {});

export class CoderClient {
  readonly timeoutMs: number;
  private readonly base: BaseURL;
  private readonly token: string;
  private readonly policy: RetryPolicy;
  private readonly maxRedirects: number;
  private readonly logger: CoderClientLogger;
  private readonly maxResponseBytes: number;
  private readonly onCall: CoderCallObserver | undefined;

  constructor(options: CoderClientOptions) {
    this.base = parseBaseURL(options.baseURL);
    if (options.token === '') throw new Error('the Coder session token is empty');
    // fetch refuses a header value with a line break, CR or NUL and quotes the whole value in its error, which
    // would reach conditions and logs: refuse anything no token holds before a request is made.
    if (!sessionTokenText.test(options.token)) throw new InvalidCoderTokenError();
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.policy = {
      attempts: 1 + Math.max(0, options.retries ?? defaultRetryPolicy.attempts - 1),
      baseDelayMs: options.backoff?.baseDelayMs ?? defaultRetryPolicy.baseDelayMs,
      maxDelayMs: options.backoff?.maxDelayMs ?? defaultRetryPolicy.maxDelayMs,
    };
    this.maxRedirects = options.maxRedirects ?? 10;
    this.logger = options.logger ?? silentLogger;
    this.maxResponseBytes = options.maxResponseBytes ?? defaultMaxResponseBytes;
    this.onCall = options.onCall;
  }

  /** The origin calls go to (scheme://host:port), without credentials: safe to log and compare. */
  get origin(): URL {
    return new URL(this.base.origin);
  }

  getBuildInfo(options: CallOptions = {}): Promise<Schemas['BuildInfoResponse']> {
    return this.request('GET', '/api/v2/buildinfo', signalOnly(options));
  }

  getCurrentUser(options: CallOptions = {}): Promise<Schemas['User']> {
    return this.request('GET', '/api/v2/users/me', signalOnly(options));
  }

  /** Uploads a license JWT as given (the caller trims it). A repeat fails: see isDuplicateLicense. */
  uploadLicense(jwt: string, options: CallOptions = {}): Promise<Schemas['License']> {
    return this.request('POST', '/api/v2/licenses', { body: { license: jwt }, ...signalOnly(options) });
  }

  /** The uploaded licenses; Coder answers null when there are none, read here as an empty list. */
  async listLicenses(options: CallOptions = {}): Promise<Schemas['License'][]> {
    return (await this.request('GET', '/api/v2/licenses', signalOnly(options))) ?? [];
  }

  async deleteLicense(id: number, options: CallOptions = {}): Promise<void> {
    await this.request('DELETE', '/api/v2/licenses/{id}', { params: { id }, ...signalOnly(options) });
  }

  /** The entitlements; an answer without a features object is an error, as in the Go operator. */
  async getEntitlements(options: CallOptions = {}): Promise<Schemas['Entitlements']> {
    const entitlements = await this.request('GET', '/api/v2/entitlements', signalOnly(options));
    const features: unknown = entitlements?.features;
    if (features === null || typeof features !== 'object' || Array.isArray(features)) {
      throw new Error('Coder API GET /api/v2/entitlements answered without a features object');
    }
    return entitlements;
  }

  /**
   * The last `maxLines` log lines of a workspace build, read over Coder's websocket (`?follow`) as codersdk
   * does, until Coder closes it (the job ended) or `timeoutMs` (default 10 s) passes. Same-origin rule as
   * every call: a redirect elsewhere fails with CrossOriginRedirectError and the token is not sent.
   */
  readBuildLogs(
    buildId: string,
    options: CallOptions & { maxLines: number; timeoutMs?: number; after?: number },
  ): Promise<{ logs: BuildLog[]; complete: boolean }> {
    return readBuildLogStream({
      ...this.logStreamOptions(buildId, options.after ?? 0),
      maxLines: options.maxLines,
      timeoutMs: Math.min(options.timeoutMs ?? 10_000, this.timeoutMs),
      ...signalOnly(options),
    });
  }

  /**
   * Each log line of a workspace build as it arrives (after line id `after`), until Coder closes the
   * socket (the job ended: complete), `timeoutMs` passes or the signal aborts. The handshake gets the
   * client's call timeout; same-origin rule as readBuildLogs.
   */
  followBuildLogs(
    buildId: string,
    options: CallOptions & { timeoutMs: number; after?: number; onOpen?: () => void; onLog: (log: BuildLog) => void },
  ): Promise<{ complete: boolean }> {
    return followBuildLogStream({
      ...this.logStreamOptions(buildId, options.after ?? 0),
      timeoutMs: options.timeoutMs,
      handshakeTimeoutMs: this.timeoutMs,
      onLog: options.onLog,
      ...(options.onOpen ? { onOpen: options.onOpen } : {}),
      ...signalOnly(options),
    });
  }

  private logStreamOptions(buildId: string, after: number) {
    const path = expandPath('/api/v2/workspacebuilds/{workspaceBuild}/logs', { workspaceBuild: buildId });
    return {
      origin: this.base.origin,
      url: requestURL(this.base, path, { follow: 'true', after }),
      token: this.token,
      maxRedirects: this.maxRedirects,
      onRefused: (err: CrossOriginRedirectError) =>
        this.logger.warn({ method: 'GET', path, from: err.from, to: err.to, status: err.status }, crossOriginRedirectMessage),
    };
  }

  /**
   * An uploaded file (a template archive) as Coder stores it: tar, whatever was uploaded. A larger
   * archive than maxBytes fails with CoderResponseTooLargeError.
   */
  async downloadFile(fileId: string, options: CallOptions & { maxBytes: number }): Promise<Buffer> {
    return (await this.send('GET', '/api/v2/files/{fileID}', {
      params: { fileID: fileId },
      bytes: { maxBytes: options.maxBytes },
      ...signalOnly(options),
    })) as Buffer;
  }

  /**
   * Any operation of the document, typed by its method and path template:
   * `client.request('DELETE', '/api/v2/organizations/{organization}/provisionerkeys/{provisionerKeyName}',
   * { params: { organization, provisionerKeyName } })`.
   */
  request<M extends HttpMethod, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...[options]: OptionsArg<Operation<M, P>>
  ): Promise<SuccessBody<Operation<M, P>>> {
    return this.send(method, path, (options ?? {}) as AnyRequestOptions) as Promise<SuccessBody<Operation<M, P>>>;
  }

  private async send(method: HttpMethod, template: string, options: AnyRequestOptions): Promise<unknown> {
    options.signal?.throwIfAborted();
    const path = expandPath(template, options.params);
    const url = requestURL(this.base, path, options.query);
    const started = Date.now();
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    const attempts = options.retries === undefined ? this.policy.attempts : 1 + Math.max(0, options.retries);
    const timedOut = () => new CoderTimeoutError(method, path, this.timeoutMs);

    for (let attempt = 1; ; attempt++) {
      const attemptStarted = performance.now();
      const record = (outcome: CoderCallOutcome) =>
        this.onCall?.({ method, route: template, outcome, seconds: (performance.now() - attemptStarted) / 1000 });
      try {
        const answer = await this.attempt(method, path, url, options, signal);
        record('success');
        return answer;
      } catch (err) {
        record(failedCallOutcome(err, { timedOut: deadline.aborted, canceled: options.signal?.aborted ?? false }));
        if (deadline.aborted) throw timedOut();
        if (options.signal?.aborted) throw options.signal.reason;
        if (attempt >= attempts || !isRetryable(err)) throw err;
        const retryAfterMs = err instanceof CoderApiError ? err.retryAfterMs : undefined;
        const delayMs = retryDelay(attempt, retryAfterMs, this.policy);
        // A wait that outlasts the call's time budget would only end in a timeout: fail now, with the cause.
        if (Date.now() - started + delayMs >= this.timeoutMs) throw err;
        this.logger.warn(
          { method, path, attempt, attempts, delayMs, status: (err as { status?: number }).status, error: (err as Error).message },
          'retrying Coder API call',
        );
        try {
          await sleep(delayMs, undefined, { signal });
        } catch {
          if (deadline.aborted) throw timedOut();
          throw options.signal?.reason ?? err;
        }
      }
    }
  }

  /** One attempt: send (following same-origin redirects), read the body, and parse or throw. */
  private async attempt(method: HttpMethod, path: string, url: URL, options: AnyRequestOptions, signal: AbortSignal): Promise<unknown> {
    const headers: Record<string, string> = { Accept: options.bytes ? '*/*' : 'application/json', 'User-Agent': 'coder-k8s' };
    let body: string | Uint8Array | undefined;
    if (options.body instanceof Uint8Array) {
      body = options.body;
      headers['Content-Type'] = options.contentType ?? 'application/octet-stream';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    headers['Coder-Session-Token'] = this.token;

    let response: Response;
    let text = '';
    let bytes: Buffer | undefined;
    try {
      response = await fetchWithinOrigin(url, {
        method,
        headers,
        body,
        signal,
        maxRedirects: this.maxRedirects,
        label: { method, path },
        onRefused: (err) => this.logger.warn({ method, path, from: err.from, to: err.to, status: err.status }, crossOriginRedirectMessage),
      });
      // Coder answers 304 Not Modified, without a body, to a write that would change nothing (coder/coder
      // v2.26.1 coderd/templates.go patchTemplateMeta): the call succeeded and there is nothing to read.
      if (response.status === 304) {
        await response.body?.cancel().catch(() => {});
        return undefined;
      }
      if (response.ok && options.bytes)
        bytes = await readBodyBytes(response, { maxBytes: options.bytes.maxBytes, overflow: 'fail', label: { method, path } });
      else
        text = await readBody(
          response,
          response.ok
            ? { maxBytes: this.maxResponseBytes, overflow: 'fail', label: { method, path } }
            : { maxBytes: errorBodyBytes, overflow: 'truncate', label: { method, path } },
        );
    } catch (err) {
      if (
        err instanceof CrossOriginRedirectError ||
        err instanceof TooManyRedirectsError ||
        err instanceof CoderResponseTooLargeError ||
        signal.aborted
      ) {
        throw err;
      }
      if (err instanceof TypeError) throw new CoderNetworkError(method, path, err);
      throw err;
    }

    if (!response.ok) {
      throw parseCoderError({
        method,
        path,
        status: response.status,
        statusText: response.statusText,
        body: text,
        buildVersion: response.headers.get('x-coder-build-version'),
        retryAfter: response.headers.get('retry-after'),
        secrets: [this.token],
      });
    }
    if (bytes) return bytes;
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(
        `Coder API ${method} ${path} answered ${response.status} with a body that is not JSON: ` +
          excerpt(removeSecrets(text.slice(0, 200), [this.token]), 100),
      );
    }
  }
}
