import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Informer } from '../../../src/runtime/informer.ts';
import { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { builtinResources } from '../../../src/runtime/resource.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

describe('an informer behind a proxy that closes every watch at once', () => {
  let server: LocalApiServer;
  const watchedAt: number[] = [];

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (new URL(req.url ?? '/', 'http://x').searchParams.get('watch') === 'true') {
        watchedAt.push(performance.now());
        res.end();
      } else {
        res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', items: [], metadata: { resourceVersion: '7' } }));
      }
    });
  });
  after(() => server.close());

  it('backs off between reconnects instead of reopening at once', async () => {
    const informer = new Informer(new KubeHttp(server.kubeConfig), builtinResources.configMap, {
      namespace: 'ns',
      backoffMs: { initial: 100, max: 800 },
    });
    informer.start();
    await informer.waitForSync();
    const windowMs = 3_000;
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    await informer.stop();
    // Delays of at least 100, 200, 400, 800, 800 ... ms allow at most 7 watches in 3 s; without a
    // backoff this is thousands. Delays of at most 200, 400, 800, 800 ... ms (full jitter) leave room
    // for 5, so 3 still holds on a busy machine, which only lowers the count and lengthens the gaps.
    const watches = watchedAt.length;
    assert.ok(watches >= 3, `the informer reconnected: ${watches} watches opened in ${windowMs} ms`);
    assert.ok(watches <= 8, `${watches} watches opened in ${windowMs} ms`);
    // Each gap is at least the un-jittered delay, which doubles: 100, 200, 400, 800 (the cap), ...
    const gaps = watchedAt.slice(1).map((at, i) => Math.round(at - watchedAt[i]!));
    gaps.forEach((gap, i) =>
      assert.ok(gap >= Math.min(100 * 2 ** i, 800) - 10, `gap ${i + 1} between watches is ${gap} ms (gaps: ${gaps.join(', ')})`),
    );
  });
});
