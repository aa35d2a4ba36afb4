// The MCP HTTP surface without a cluster: sessions opened by initialize, ended by DELETE (with the
// token only), unknown ids, and idle sessions reclaimed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { bearerCheck } from '../../../src/mcp/bearer-token.ts';
import { startMcpHttpServer, type McpHttpServer } from '../../../src/mcp/http-server.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { initializeStatusWithHost } from '../../harness/mcp-initialize.ts';

const token = 't'.repeat(40);
const auth = { Authorization: `Bearer ${token}` };
const startServer = (bindAddress: string, options: { sessionIdleMs?: number } = {}) =>
  startMcpHttpServer({
    bindAddress,
    authorized: bearerCheck(token),
    newServer: () => new McpServer({ name: 'coder-k8s', version: 'test' }),
    logger: createLogger({ level: 'error' }),
    ...options,
  });

describe('the MCP HTTP server', () => {
  let server: McpHttpServer;
  let url: string;
  before(async () => {
    server = await startServer('127.0.0.1:0', { sessionIdleMs: 300 });
    url = `http://127.0.0.1:${server.port}/mcp`;
  });
  after(() => server?.close());

  const initialize = async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unit', version: '1' } },
      }),
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /"serverInfo":\{"name":"coder-k8s"/);
    return response.headers.get('mcp-session-id')!;
  };
  const deleteSession = (id: string, headers: Record<string, string>) =>
    fetch(url, { method: 'DELETE', headers: { ...headers, 'Mcp-Session-Id': id } }).then((r) => r.status);

  it('opens a session on initialize and ends it on DELETE with the token only', async () => {
    const id = await initialize();
    assert.equal(server.sessionCount(), 1);
    assert.equal(await deleteSession(id, {}), 401);
    assert.equal(server.sessionCount(), 1, 'a refused DELETE leaves the session');
    assert.equal(await deleteSession(id, auth), 200);
    assert.equal(server.sessionCount(), 0);
    assert.equal(await deleteSession(id, auth), 404, 'the id is gone');
  });

  it('refuses a request other than initialize without a session', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    });
    assert.equal(response.status, 400);
    assert.equal(server.sessionCount(), 0);
  });

  it('closes sessions left idle', async () => {
    await initialize();
    assert.equal(server.sessionCount(), 1);
    const deadline = Date.now() + 5_000;
    while (server.sessionCount() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(server.sessionCount(), 0);
  });
});

describe('the MCP HTTP server on another loopback address', () => {
  let server: McpHttpServer;
  before(async () => {
    server = await startServer('127.0.0.2:0');
  });
  after(() => server?.close());

  const statusWithHost = (host: string) => initializeStatusWithHost(`http://127.0.0.2:${server.port}/mcp`, token, host);

  it('answers a client that names the address it listens on (--mcp-bind-address accepts any 127.x.x.x)', async () => {
    assert.equal(await statusWithHost(`127.0.0.2:${server.port}`), 200);
  });

  it('refuses a Host that names no loopback address, which DNS could rebind to it', async () => {
    assert.equal(await statusWithHost(`attacker.example:${server.port}`), 403);
    assert.equal(await statusWithHost(`127.0.0.2.attacker.example:${server.port}`), 403);
  });
});
