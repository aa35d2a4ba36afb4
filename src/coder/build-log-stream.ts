// Build logs over Coder's websocket (`GET /api/v2/workspacebuilds/{id}/logs?follow`), as codersdk reads
// them: one ProvisionerJobLog per text frame until Coder closes the socket when the job has ended. The
// upgrade request carries the session token, so it obeys the same-origin rule of every other call: a
// redirect is followed only to the same scheme, host and port, and any other one fails the read with
// `refusing redirect to a different origin than the coder URL` before anything is sent there.
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import type { Schemas } from './api-types.ts';
import { CoderApiError, CrossOriginRedirectError, TooManyRedirectsError } from './errors.ts';
import { originOf, sameOrigin } from './same-origin.ts';

export type BuildLog = Schemas['ProvisionerJobLog'];

export interface BuildLogStreamOptions {
  /** The origin of the Coder URL (http or https): the only one the token goes to. */
  origin: URL;
  /** The http(s) URL of the logs with ?follow; the socket goes to its ws or wss form. */
  url: URL;
  token: string;
  /** Lines kept: the last ones win. */
  maxLines: number;
  /** The most the whole read may take; a job that never ends ends the read here. */
  timeoutMs: number;
  maxRedirects: number;
  signal?: AbortSignal;
  onRefused?: (err: CrossOriginRedirectError) => void;
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
  const path = options.url.pathname;
  let current = new URL(options.url);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  for (let followed = 0; ; followed++) {
    const outcome = await connect(current, options, signal);
    if ('logs' in outcome) return outcome;
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

type ConnectOutcome = { logs: BuildLog[]; complete: boolean } | { location: string; status: number };

function connect(url: URL, options: BuildLogStreamOptions, signal: AbortSignal): Promise<ConnectOutcome> {
  return new Promise((resolve, reject) => {
    const logs: BuildLog[] = [];
    let settled = false;
    // Redirects are never followed by the library: each one is checked here first.
    const socket = new WebSocket(toWebSocketURL(url), {
      headers: { 'Coder-Session-Token': options.token, 'User-Agent': 'coder-k8s' },
      followRedirects: false,
      handshakeTimeout: options.timeoutMs,
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
    // The time is up (or the reconcile ended): what arrived so far is what there is.
    const onAbort = () => finish({ logs, complete: false });
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('unexpected-response', (_req, res: IncomingMessage) => {
      res.resume();
      const location = res.headers.location;
      if (redirectStatuses.has(res.statusCode ?? 0) && location) return finish({ location, status: res.statusCode! });
      finish(new CoderApiError({ method: 'GET', path: url.pathname, status: res.statusCode ?? 0, statusText: res.statusMessage }));
    });
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      try {
        logs.push(JSON.parse(data.toString()) as BuildLog);
        if (logs.length > options.maxLines) logs.shift();
      } catch {
        // A frame that is not a log line is skipped; the next ones still count.
      }
    });
    socket.on('close', () => finish({ logs, complete: true }));
    socket.on('error', (err) => finish(err));
  });
}
