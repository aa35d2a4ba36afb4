import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeHttp, retryAfterMs } from '../../../src/runtime/kube-http.ts';
import { RequestBudget } from '../../../src/runtime/request-budget.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

describe('KubeHttp and API Priority and Fairness', () => {
  let server: LocalApiServer;
  const seen = new Map<string, number>();

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      const path = req.url ?? '';
      const count = (seen.get(path) ?? 0) + 1;
      seen.set(path, count);
      // /throttled-N: turned away N times, as Priority and Fairness does, then served.
      const times = Number(/^\/throttled-(\d+)/.exec(path)?.[1] ?? 0);
      if (count <= times) {
        res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '0' });
        res.end('{"kind":"Status","code":429,"reason":"TooManyRequests","message":"too many requests"}');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ served: count }));
    });
  });
  after(() => server.close());

  it('sends a request the API server turned away with 429 again, and answers with what it finally got', async () => {
    const http = new KubeHttp(server.kubeConfig);
    assert.deepEqual(await http.json('GET', '/throttled-3'), { served: 4 });
  });

  it('gives up with the 429 after ten retries', async () => {
    const http = new KubeHttp(server.kubeConfig);
    await assert.rejects(http.json('GET', '/throttled-50'), (err: unknown) => {
      assert.equal((err as { code?: number }).code, 429);
      return true;
    });
    assert.equal(seen.get('/throttled-50'), 11);
  });

  it('waits each request for a token of its budget', async () => {
    let now = 0;
    const budget = new RequestBudget({ qps: 10, burst: 2, now: () => now });
    assert.deepEqual([budget.reserve(), budget.reserve(), budget.reserve(), budget.reserve()], [0, 0, 100, 200]);
    now = 1_000;
    // A second later the bucket holds what it refilled less what was reserved ahead: 10 - 2 = 8 (burst caps it at 2).
    assert.equal(budget.reserve(), 0);
    const http = new KubeHttp(server.kubeConfig, { budget: new RequestBudget({ qps: 1000, burst: 1 }) });
    assert.deepEqual(await Promise.all([http.json('GET', '/a'), http.json('GET', '/b')]), [{ served: 1 }, { served: 1 }]);
  });

  it('reads Retry-After in seconds, 1 s when absent, at most 10 s, jittered up to half again', () => {
    assert.equal(
      retryAfterMs('2', () => 0),
      2_000,
    );
    assert.equal(
      retryAfterMs(undefined, () => 0),
      1_000,
    );
    assert.equal(
      retryAfterMs('soon', () => 0),
      1_000,
    );
    assert.equal(
      retryAfterMs('3600', () => 0),
      10_000,
    );
    assert.equal(
      retryAfterMs('1', () => 1),
      1_500,
    );
  });
});
