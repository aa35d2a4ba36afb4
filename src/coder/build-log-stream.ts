// Build logs over Coder's websocket (`GET /api/v2/workspacebuilds/{id}/logs?follow`), as codersdk reads
// them: one ProvisionerJobLog per text frame until Coder closes the socket when the job has ended. The
// upgrade request carries the session token (as the cookie `coder_session_token`, as a browser would), so
// it obeys the same-origin rule of every other call: a redirect is followed only to the same scheme, host
// and port, and any other one fails the read with `refusing redirect to a different origin than the coder
// URL` before anything is sent there.
import type { IncomingMessage } from 'node:http';
import type { Schemas } from './api-types.ts';
import { CoderApiError, CrossOriginRedirectError, TooManyRedirectsError } from './errors.ts';
import { originOf, sameOrigin } from './same-origin.ts';

export type BuildLog = Schemas['ProvisionerJobLog'];

export interface BuildLogFollowOptions {
  /** The origin of the Coder URL (http or https): the only one the token goes to. */
  origin: URL;
  /** The http(s) URL of the logs with ?follow; the socket goes to its ws or wss form. */
  url: URL;
  token: string;
  /** The most the whole read may take; a job that never ends ends the read here. */
  timeoutMs: number;
  /** The most the opening handshake may take; timeoutMs when unset. */
  handshakeTimeoutMs?: number;
  maxRedirects: number;
  signal?: AbortSignal | undefined;
  onRefused?: (err: CrossOriginRedirectError) => void;
  /** The socket is open: Coder accepted the request and lines follow. */
  onOpen?: () => void;
  /** Each log line, as it arrives. */
  onLog: (log: BuildLog) => void;
}

export interface BuildLogStreamOptions extends Omit<BuildLogFollowOptions, 'onLog' | 'onOpen'> {
  /** Lines kept: the last ones win. */
  maxLines: number;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

function toWebSocketURL(url: URL): URL {
  const ws = new URL(url);
  ws.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return ws;
}

function toHttpURL(url: URL): URL {
  const http = new URL(url);
  if (url.protocol === 'ws:') http.protocol = 'http:';
  if (url.protocol === 'wss:') http.protocol = 'https:';
  return http;
}

/** The last `maxLines` log lines of the build, read until Coder closes the stream (job ended) or the time is up. */
export async function readBuildLogStream(options: BuildLogStreamOptions): Promise<{ logs: BuildLog[]; complete: boolean }> {
  const logs: BuildLog[] = [];
  const { complete } = await followBuildLogStream({
    ...options,
    onLog(log) {
      logs.push(log);
      if (logs.length > options.maxLines) logs.shift();
    },
  });
  return { logs, complete };
}

/**
 * Hands each log line of the build to `onLog` as it arrives; resolves when Coder closes the stream (complete:
 * the job ended) or when the time is up or the signal aborts (not complete).
 */
export async function followBuildLogStream(options: BuildLogFollowOptions): Promise<{ complete: boolean }> {
  const path = options.url.pathname;
  let current = new URL(options.url);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  for (let followed = 0; ; followed++) {
    const outcome = await connect(current, options, signal);
    if ('complete' in outcome) return outcome;
    const target = new URL(outcome.location, current);
    if (!sameOrigin(options.origin, toHttpURL(target))) {
      const err = new CrossOriginRedirectError(originOf(options.origin), originOf(toHttpURL(target)), outcome.status);
      options.onRefused?.(err);
      throw err;
    }
    if (followed >= options.maxRedirects) throw new TooManyRedirectsError('GET', path, options.maxRedirects);
    target.username = '';
    target.password = '';
    current = toHttpURL(target);
  }
}

type ConnectOutcome = { complete: boolean } | { location: string; status: number };

async function connect(url: URL, options: BuildLogFollowOptions, signal: AbortSignal): Promise<ConnectOutcome> {
  // The websocket library loads with the first followed log: a controller never needs it.
  const { default: WebSocket } = await import('ws');
  return new Promise((resolve, reject) => {
    let settled = false;
    // Redirects are never followed by the library: each one is checked here first.
    const socket = new WebSocket(toWebSocketURL(url), {
      headers: { Cookie: `coder_session_token=${options.token}`, 'User-Agent': 'coder-k8s' },
      followRedirects: false,
      handshakeTimeout: options.handshakeTimeoutMs ?? options.timeoutMs,
      maxPayload: 1024 * 1024,
    });
    const finish = (outcome: ConnectOutcome | Error) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.terminate();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    // The time is up (or the reader went away): what arrived so far is what there is.
    const onAbort = () => finish({ complete: false });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('unexpected-response', (_req, res: IncomingMessage) => {
      res.resume();
      const location = res.headers.location;
      if (redirectStatuses.has(res.statusCode ?? 0) && location) return finish({ location, status: res.statusCode! });
      finish(new CoderApiError({ method: 'GET', path: url.pathname, status: res.statusCode ?? 0, statusText: res.statusMessage }));
    });
    socket.on('open', () => options.onOpen?.());
    socket.on('message', (data, isBinary) => {
      if (isBinary || settled) return;
      let log: BuildLog;
      try {
        log = JSON.parse(data.toString()) as BuildLog;
      } catch {
        return; // A frame that is not a log line is skipped; the next ones still count.
      }
      options.onLog(log);
    });
    socket.on('close', () => finish({ complete: true }));
    socket.on('error', (err) => finish(err));
  });
}
