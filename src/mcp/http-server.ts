// The MCP server's HTTP surface: /healthz and /readyz for probes, and /mcp (Streamable HTTP, one MCP
// session per client) behind the bearer token. Checks in front of the SDK transport: the token first
// (nothing else is looked at, no session is touched without it), then a loopback Host (DNS rebinding),
// no cross-origin browser request, and a JSON Content-Type on POST.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isLoopbackHost, requestPath, sendText, serveHttp, type HttpEndpoint } from '../runtime/http-endpoint.ts';
import type { Logger } from '../runtime/logger.ts';

export interface McpHttpOptions {
  bindAddress: string;
  /** True when the Authorization header carries the token. */
  authorized(authorization: string | undefined): boolean;
  /** A fresh MCP server for a new session (an SDK server serves one transport). */
  newServer(): McpServer;
  logger: Logger;
  /** Sessions idle this long are closed; default 15 min. */
  sessionIdleMs?: number;
}

export interface McpHttpServer extends HttpEndpoint {
  /** Open sessions, for tests and logs. */
  sessionCount(): number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  lastUsed: number;
}

export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpServer> {
  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? 15 * 60_000;

  const closeSession = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    void session.server.close().catch(() => undefined);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = requestPath(request);
    if ((path === '/healthz' || path === '/readyz') && (request.method === 'GET' || request.method === 'HEAD')) {
      sendText(response, 200, 'ok');
      return;
    }
    if (!options.authorized(request.headers.authorization)) {
      response.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': 'Bearer realm="coder-k8s-mcp"' });
      response.end('unauthorized\n');
      return;
    }
    if (path !== '/mcp') return sendText(response, 404, '404 page not found\n');
    const refusal = refuseRequest(request);
    if (refusal) return sendText(response, refusal.status, `${refusal.message}\n`);

    const sessionId = header(request, 'mcp-session-id');
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return sendJsonRpcError(response, 404, 'session not found');
      session.lastUsed = Date.now();
      await session.transport.handleRequest(request, response);
      return;
    }
    if (request.method !== 'POST') return sendJsonRpcError(response, 400, 'Mcp-Session-Id header is required');
    // A POST without a session may only be `initialize`; the transport refuses anything else with 400.
    const server = options.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastUsed: Date.now() });
        options.logger.info({ session: id }, 'MCP session opened');
      },
      onsessionclosed: (id) => {
        closeSession(id);
        options.logger.info({ session: id }, 'MCP session closed');
      },
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
    if (transport.sessionId === undefined) await server.close();
  };

  const endpoint = await serveHttp(options.bindAddress, handle);
  if (!endpoint) throw new Error(`--mcp-bind-address=${options.bindAddress} disables the MCP server`);
  const reaper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) if (now - session.lastUsed >= idleMs) closeSession(id);
    },
    Math.min(60_000, idleMs),
  );
  reaper.unref();
  return {
    ...endpoint,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(reaper);
      for (const id of [...sessions.keys()]) closeSession(id);
      await endpoint.close();
    },
  };
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The checks an authorized request must still pass before the SDK sees it, or undefined. */
function refuseRequest(request: IncomingMessage): { status: number; message: string } | undefined {
  const local = request.socket.localAddress ?? '';
  const arrivedOnLoopback = local.startsWith('127.') || local === '::1' || local.startsWith('::ffff:127.');
  const host = header(request, 'host') ?? '';
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  // A name other than localhost could be rebound by DNS to this address; a loopback literal cannot.
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname.toLowerCase();
  if (arrivedOnLoopback && !isLoopbackHost(bare)) {
    return { status: 403, message: 'forbidden: the Host header must name a loopback address' };
  }
  const origin = header(request, 'origin');
  if (origin !== undefined && origin !== `http://${host}`) return { status: 403, message: 'forbidden: cross-origin request' };
  if (header(request, 'sec-fetch-site') === 'cross-site') return { status: 403, message: 'forbidden: cross-site request' };
  if (request.method === 'POST' && header(request, 'content-type') !== 'application/json') {
    return { status: 415, message: 'unsupported media type: Content-Type must be application/json' };
  }
  return undefined;
}

function sendJsonRpcError(response: ServerResponse, status: number, message: string): void {
  sendText(response, status, JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), 'application/json');
}
