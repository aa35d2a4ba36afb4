// The websocket of `GET /api/v2/workspacebuilds/{id}/logs?follow`: one ProvisionerJobLog per text frame,
// then a close once the build's job has ended, as Coder streams build logs (coder/coder v2.26.1
// coderd/workspacebuilds.go workspaceBuildLogs, coderd/provisionerjobs.go). Lines a test adds to
// world.buildLogs while a socket is open are sent on it; every socket is recorded with whether it is open.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { CoderApiDoubleState } from './state.ts';

const logsPath = /^\/api\/v2\/workspacebuilds\/([0-9a-f-]{36})\/logs$/;
const endedJobs = new Set(['succeeded', 'failed', 'canceled']);

/** A raw HTTP answer on a socket that asked for an upgrade (redirects and refusals happen before the handshake). */
export function answerRaw(socket: Duplex, status: number, reason: string, headers: Record<string, string> = {}, body = ''): void {
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    ...Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** A logs websocket the double accepted: `open` turns false when either side closes it. */
export interface LogFollow {
  buildId: string;
  open: boolean;
}

/** The session token of an upgrade: the cookie `coder_session_token`, as browsers and codersdk's websockets send it. */
export function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === 'coder_session_token') return value.join('=');
  }
  return undefined;
}

export function createBuildLogSockets(getState: () => CoderApiDoubleState, stopping: AbortSignal) {
  const wss = new WebSocketServer({ noServer: true });
  const follows: LogFollow[] = [];
  return {
    follows,
    /** Serves the upgrade when it is a logs request of a known build by a known token; answers 404/401 otherwise. */
    handle(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
      const state = getState();
      const match = logsPath.exec(url.pathname);
      if (!match || !url.searchParams.has('follow'))
        return answerRaw(socket, 404, 'Not Found', {}, JSON.stringify({ message: 'Route not found.' }));
      const token = cookieToken(req);
      if (token === undefined || !state.tokens.has(token)) {
        return answerRaw(socket, 401, 'Unauthorized', {}, JSON.stringify({ message: 'You are signed out or your session has expired.' }));
      }
      const buildId = match[1]!;
      const build = state.world.workspaces.flatMap((w) => w.builds).find((b) => b.id === buildId);
      // coder/coder v2.26.1 coderd/httpmw/workspacebuildparam.go: Coder's one 404 message (httpapi.ResourceNotFound).
      if (!build) {
        const message = 'Resource not found or you do not have access to this resource';
        return answerRaw(socket, 404, 'Not Found', {}, JSON.stringify({ message }));
      }
      const after = Number(url.searchParams.get('after') ?? 0);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const follow: LogFollow = { buildId, open: true };
        follows.push(follow);
        let sent = after;
        const pump = () => {
          for (const log of state.world.buildLogs.get(buildId) ?? []) {
            if (log.id > sent) {
              ws.send(JSON.stringify(log));
              sent = log.id;
            }
          }
          if (endedJobs.has(build.job.status) || stopping.aborted) {
            clearInterval(timer);
            ws.close(1000);
          }
        };
        const timer = setInterval(pump, 200);
        ws.on('close', () => {
          clearInterval(timer);
          follow.open = false;
        });
        pump();
      });
    },
    close(): void {
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
