import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Informer } from '../../../src/runtime/informer.ts';
import { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { builtinResources } from '../../../src/runtime/resource.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

describe('an informer behind a proxy that closes every watch at once', () => {
  let server: LocalApiServer;
  let watches = 0;

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (new URL(req.url ?? '/', 'http://x').searchParams.get('watch') === 'true') {
        watches++;
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
    // backoff this is thousands. A busy machine only lowers the count.
    assert.ok(watches >= 1, 'the informer watched');
    assert.ok(watches <= 8, `${watches} watches opened in ${windowMs} ms`);
  });
});
