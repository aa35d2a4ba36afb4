// A Coder API test double: a real HTTP server on 127.0.0.1 that serves the operations of
// schemas/coder-api/openapi.yaml from in-memory state. It refuses what Coder refuses (unknown route 404, a
// known path with another method 405, missing or unknown token 401, parameters or body out of schema 400),
// ignores body fields Coder does not know as Coder does but records them as violations (stop() then fails
// the test that sent them), checks its own answers against the document, records every request, and can be
// told to fail, stall or redirect.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { answerRaw, cookieToken, createBuildLogSockets, type LogFollow } from './coder-api-double/build-log-socket.ts';
import { coderApiDocument, type Operation } from './coder-api-double/document.ts';
import { handlers, routeNotFound, type Answer } from './coder-api-double/handlers.ts';
import { initialState, operatorUserId, type CoderApiDoubleState } from './coder-api-double/state.ts';
import { checkResponse, isRejection, validateRequest } from './coder-api-double/validation.ts';

export { fakeLicenseJwt, operatorUserId, type CoderApiDoubleState } from './coder-api-double/state.ts';

export interface RecordedRequest {
  method: string;
  /** The path as sent, without the query. */
  path: string;
  query: Record<string, string>;
  /** Header names in lower case, as Node reports them; coder-session-token included when sent. */
  headers: Record<string, string>;
  /** The Coder-Session-Token header, or on a websocket upgrade the coder_session_token cookie, if any. */
  token?: string;
  /** The parsed JSON body, else its text; undefined when empty. */
  body: unknown;
  /** The operation of the document the request matched, if any. */
  operationId?: string;
}

export interface FailureOptions {
  /** Sent as Retry-After (delay-seconds). */
  retryAfterSeconds?: number;
  /** Only requests whose path starts with this fail (and count); others pass. */
  pathPrefix?: string;
  /** Only requests with this method fail (and count), for example POST. */
  method?: string;
  message?: string;
}

export interface RedirectOptions {
  /**
   * A path on this server ("/api/v2"): the Location is that path followed by the rest of the request
   * path after the prefix, and the query. Or an absolute URL of another origin, used as it is.
   */
  to: string;
  status?: 301 | 302 | 303 | 307 | 308;
  /** How many requests are redirected before the rule lapses; unlimited by default. */
  times?: number;
}

export interface CoderApiDouble {
  /** http://127.0.0.1:<port>, without a trailing slash. */
  readonly url: string;
  /** Every request received, in order, including refused, failed and redirected ones. */
  readonly requests: RecordedRequest[];
  /** Every build-log websocket accepted, in order, with whether it is still open. */
  readonly logFollows: readonly LogFollow[];
  /** The in-memory Coder: seed it before a test, read it after. */
  readonly state: CoderApiDoubleState;
  /** Answers of the double that broke the document (also answered as 500); stop() fails when any. */
  readonly violations: string[];
  /** Makes a token valid, for the operator user unless another user id is given. */
  addToken(token: string, userId?: string): void;
  /** The next `count` requests (matching pathPrefix) answer `status` in Coder's error shape. */
  failNext(count: number, status: number, options?: FailureOptions): void;
  /** Holds every answer back for `ms` milliseconds; 0 turns it off. */
  delay(ms: number): void;
  /** Redirects requests whose path starts with pathPrefix. */
  redirect(pathPrefix: string, options: RedirectOptions): void;
  /** Ends the failures and redirects set for exactly this path prefix (other tests' knobs stay). */
  clearKnobs(pathPrefix: string): void;
  /** Back to the state after start: tokens of the options only, no knobs, no recorded requests. */
  reset(): void;
  stop(): Promise<void>;
}

interface Failure extends FailureOptions {
  remaining: number;
  status: number;
}

interface Redirect extends RedirectOptions {
  pathPrefix: string;
  remaining: number;
}

const maxBodyBytes = 16 * 1024 * 1024;

export async function startCoderApiDouble(options: { tokens?: string[] } = {}): Promise<CoderApiDouble> {
  const doc = coderApiDocument();
  const tokens = options.tokens ?? [];
  let state = initialState(tokens);
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  let failures: Failure[] = [];
  let redirects: Redirect[] = [];
  let delayMs = 0;
  const stopping = new AbortController();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://double.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    const headers = flattenHeaders(req);
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: recordedBody(rawBody),
    };
    if (headers['coder-session-token'] !== undefined) record.token = headers['coder-session-token'];
    requests.push(record);

    if (delayMs > 0) await sleep(delayMs, undefined, { signal: stopping.signal });

    const redirect = redirects.find((r) => r.remaining > 0 && url.pathname.startsWith(r.pathPrefix));
    if (redirect) {
      redirect.remaining--;
      const rest = url.pathname.slice(redirect.pathPrefix.length);
      const path = rest === '' ? redirect.to : `${redirect.to.replace(/\/+$/, '')}/${rest.replace(/^\/+/, '')}`;
      const location = redirect.to.startsWith('/') ? `${path}${url.search}` : redirect.to;
      return send(res, { status: redirect.status ?? 307, headers: { Location: location } });
    }

    const failure = failures.find(
      (f) => f.remaining > 0 && url.pathname.startsWith(f.pathPrefix ?? '') && (f.method === undefined || f.method === method),
    );
    if (failure) {
      failure.remaining--;
      const extra: Record<string, string> = {};
      if (failure.retryAfterSeconds !== undefined) extra['Retry-After'] = String(failure.retryAfterSeconds);
      return send(res, {
        status: failure.status,
        body: { message: failure.message ?? `Injected failure ${failure.status} from the Coder API double.` },
        headers: extra,
      });
    }

    // A known path asked with a method Coder does not serve there: Coder's router (chi) answers 405 with an
    // empty body and Allow (coder/coder v2.26.1 coderd/coderd.go sets only NotFound; checked on the real
    // server). Coder authenticates and reads the path's objects first; the double does not.
    const match = doc.match(method, url.pathname);
    if (!match) {
      const allowed = doc.methodsOf(url.pathname);
      return send(res, allowed.length ? { status: 405, headers: { Allow: allowed.join(', ') } } : routeNotFound);
    }
    record.operationId = match.operation.operationId;
    send(res, answer(match.operation, match.pathParams, url, headers, rawBody), match.operation);
  }

  function answer(op: Operation, pathParams: Record<string, string>, url: URL, headers: Record<string, string>, rawBody: Buffer): Answer {
    const handler = handlers[op.operationId];
    const early = handler?.beforeApiKey?.(state);
    if (early) return early;
    const user = authenticate(op, headers['coder-session-token']);
    if ('status' in user) return user;
    const checked = validateRequest(doc, op, {
      pathParams,
      query: url.searchParams,
      headers,
      contentType: headers['content-type'] ?? '',
      rawBody,
    });
    if (isRejection(checked)) return checked;
    if (checked.unknownFields) {
      violations.push(
        `${op.operationId} (${op.method} ${op.pathTemplate}) was sent fields Coder does not know: ${checked.unknownFields.join(', ')} ` +
          '(Coder ignores them silently, so the request would not do what it asks)',
      );
    }
    if (!handler) {
      // Not faked: an operation only answers once the issue that needs it implements it in handlers.ts.
      return {
        status: 501,
        body: {
          message: `The Coder API double does not implement ${op.operationId} (${op.method} ${op.pathTemplate}) yet.`,
          detail: 'Implement it in test/harness/coder-api-double/handlers.ts.',
        },
      };
    }
    return handler({ state, params: checked.params, body: checked.body, ...user });
  }

  function authenticate(op: Operation, token: string | undefined): Answer | { user?: CoderApiDoubleState['users'][number] } {
    if (!op.secured) return {};
    const signedOut = 'You are signed out or your session has expired. Please sign in again to continue.';
    if (token === undefined || token === '') {
      return { status: 401, body: { message: signedOut, detail: 'Cookie "coder_session_token" or query parameter must be provided.' } };
    }
    const userId = state.tokens.get(token);
    const user = state.users.find((u) => u.id === userId);
    if (!user) return { status: 401, body: { message: signedOut, detail: 'API key is invalid.' } };
    return { user };
  }

  function send(res: ServerResponse, reply: Answer, op?: Operation): void {
    let { status, body } = reply;
    if (op) {
      const problem = checkResponse(doc, op, status, body);
      if (problem) {
        violations.push(problem);
        status = 500;
        body = { message: 'The Coder API double answered out of spec.', detail: problem };
      }
    }
    // A binary answer (a downloaded archive) goes out as it is, with the Content-Type its handler set.
    const binary = body instanceof Uint8Array;
    const payload: string | Uint8Array = body instanceof Uint8Array ? body : body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, {
      // Read defensively: a test may have seeded build info that breaks the document on purpose.
      'X-Coder-Build-Version': String(state.buildInfo?.version ?? 'unknown'),
      ...(payload.length === 0 || binary ? {} : { 'Content-Type': 'application/json; charset=utf-8' }),
      'Content-Length': String(Buffer.byteLength(payload)),
      ...reply.headers,
    });
    res.end(payload);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (stopping.signal.aborted) return void res.destroy();
      const problem = `the Coder API double failed on ${req.method} ${req.url}: ${(err as Error).stack ?? String(err)}`;
      violations.push(problem);
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ message: 'The Coder API double failed.', detail: problem }));
    });
  });
  // Websocket upgrades (build logs with ?follow) are recorded and redirected like any request.
  const logSockets = createBuildLogSockets(() => state, stopping.signal);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://double.invalid');
    const headers = flattenHeaders(req);
    const record: RecordedRequest = {
      method: 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: undefined,
    };
    const token = cookieToken(req);
    if (token !== undefined) record.token = token;
    requests.push(record);
    const redirect = redirects.find((r) => r.remaining > 0 && url.pathname.startsWith(r.pathPrefix));
    if (redirect) {
      redirect.remaining--;
      const location = redirect.to.startsWith('/')
        ? `${redirect.to}${url.pathname.slice(redirect.pathPrefix.length)}${url.search}`
        : redirect.to;
      return answerRaw(socket, redirect.status ?? 307, 'Redirect', { Location: location });
    }
    logSockets.handle(req, socket, head, url);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    logFollows: logSockets.follows,
    get state() {
      return state;
    },
    violations,
    addToken(token, userId = operatorUserId) {
      state.tokens.set(token, userId);
    },
    failNext(count, status, failOptions = {}) {
      if (status < 400 || status > 599) throw new Error(`failNext: ${status} is not an error status`);
      failures.push({ ...failOptions, remaining: count, status });
    },
    delay(ms) {
      delayMs = ms;
    },
    redirect(pathPrefix, redirectOptions) {
      redirects.push({ ...redirectOptions, pathPrefix, remaining: redirectOptions.times ?? Infinity });
    },
    clearKnobs(pathPrefix) {
      failures = failures.filter((f) => (f.pathPrefix ?? '') !== pathPrefix);
      redirects = redirects.filter((r) => r.pathPrefix !== pathPrefix);
    },
    reset() {
      state = initialState(tokens);
      requests.length = 0;
      logSockets.follows.length = 0;
      violations.length = 0;
      failures = [];
      redirects = [];
      delayMs = 0;
    },
    async stop() {
      stopping.abort();
      logSockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (violations.length > 0) {
        throw new Error(
          `the Coder API double saw requests or gave answers outside schemas/coder-api/openapi.yaml:\n${violations.join('\n')}`,
        );
      }
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) throw new Error(`request body larger than ${maxBodyBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function recordedBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
