import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeHttp, KubeTimeoutError } from '../../../src/runtime/kube-http.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

// The server trickles far longer than any deadline below, so a pass cannot come from it finishing.
const trickleMs = 20_000;

describe('KubeHttp deadlines', () => {
  let server: LocalApiServer;

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      if (req.url?.startsWith('/trickle')) {
        // Headers at once, then one byte of a JSON body every 100 ms: never idle for long.
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"items":[');
        const started = Date.now();
        const timer = setInterval(() => {
          if (Date.now() - started > trickleMs) {
            clearInterval(timer);
            res.end(']}');
          } else res.write(' ');
        }, 100);
        res.on('close', () => clearInterval(timer));
      } else if (req.url?.startsWith('/silent')) {
        // Never answers.
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"ok":true}');
      }
    });
  });
  after(() => server.close());

  it('fails a body that trickles in slower than the deadline, at the deadline', async () => {
    const http = new KubeHttp(server.kubeConfig);
    const started = Date.now();
    await assert.rejects(http.json('GET', '/trickle', { timeoutMs: 1_000 }), (err: unknown) => {
      assert.ok(err instanceof KubeTimeoutError, `expected KubeTimeoutError, got ${String(err)}`);
      assert.match(err.message, /^GET \/trickle: no complete answer within 1000 ms$/);
      return true;
    });
    assert.ok(Date.now() - started < trickleMs / 2, `took ${Date.now() - started} ms`);
  });

  it('fails a request whose headers never come, at the deadline', async () => {
    const http = new KubeHttp(server.kubeConfig);
    await assert.rejects(http.json('GET', '/silent', { timeoutMs: 500 }), KubeTimeoutError);
  });

  it('still answers a prompt request, and a caller abort is not reported as a timeout', async () => {
    const http = new KubeHttp(server.kubeConfig);
    assert.deepEqual(await http.json('GET', '/fine', { timeoutMs: 5_000 }), { ok: true });
    const caller = new AbortController();
    const pending = http.json('GET', '/trickle', { timeoutMs: 60_000, signal: caller.signal });
    setImmediate(() => caller.abort());
    await assert.rejects(pending, (err: unknown) => !(err instanceof KubeTimeoutError));
  });
});
