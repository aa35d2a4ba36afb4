import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { parseBindAddress, serveHttp } from '../../../src/runtime/http-endpoint.ts';

describe('parseBindAddress', () => {
  const valid: Array<[string, ReturnType<typeof parseBindAddress>]> = [
    [':8080', { host: undefined, port: 8080 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['localhost:8081', { host: 'localhost', port: 8081 }],
    ['[::1]:9090', { host: '::1', port: 9090 }],
    ['0', undefined],
    ['', undefined],
  ];
  for (const [address, expected] of valid) {
    it(`reads "${address}"`, () => assert.deepEqual(parseBindAddress(address), expected));
  }
  for (const address of ['8080', 'host:', ':70000', '::1:80', 'http://x:80']) {
    it(`rejects "${address}"`, () => assert.throws(() => parseBindAddress(address), /invalid bind address/));
  }
});

describe('serveHttp', () => {
  it('fails with the address when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      await assert.rejects(
        serveHttp(`127.0.0.1:${port}`, () => undefined),
        new RegExp(`cannot listen on "127.0.0.1:${port}"`),
      );
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('closes within 2 s even while a client holds a connection mid-response', async () => {
    // A response that never ends keeps its connection busy: server.close() alone waits for it.
    const endpoint = await serveHttp('127.0.0.1:0', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.flushHeaders();
    });
    assert.ok(endpoint);
    const client = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    try {
      const response = await fetch(`http://127.0.0.1:${endpoint.port}/`, { keepalive: true, signal: client.signal });
      assert.equal(response.status, 200);
      await Promise.race([
        endpoint.close(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('close() did not resolve within 2 s')), 2_000);
        }),
      ]);
      await response.body?.cancel().catch(() => undefined); // the server cut the body short
    } finally {
      clearTimeout(timer);
      client.abort(); // lets a close() that failed to end the connection finish, so the run does not hang
    }
  });
});
