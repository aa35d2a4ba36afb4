import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { watchOnce, WatchOverranError, WatchSilentError } from '../../../src/runtime/watch-stream.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

describe('watchOnce bounds', () => {
  let server: LocalApiServer;

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (req.url?.startsWith('/chatty')) {
        // Keeps sending blank lines for ever, whatever timeoutSeconds asked for.
        const timer = setInterval(() => res.write('\n'), 100);
        res.on('close', () => clearInterval(timer));
      }
      // '/mute': headers, then nothing.
    });
  });
  after(() => server.close());

  it('cuts a watch that stays open past timeoutSeconds and its grace', async () => {
    const http = new KubeHttp(server.kubeConfig);
    await assert.rejects(
      watchOnce(http, '/chatty', { resourceVersion: '1', timeoutSeconds: 1, graceMs: 500, idleMs: 60_000 }, () => {}),
      WatchOverranError,
    );
  });

  it('detects a watch that stops sending', async () => {
    const http = new KubeHttp(server.kubeConfig);
    await assert.rejects(
      watchOnce(http, '/mute', { resourceVersion: '1', timeoutSeconds: 60, idleMs: 500 }, () => {}),
      WatchSilentError,
    );
  });
});
