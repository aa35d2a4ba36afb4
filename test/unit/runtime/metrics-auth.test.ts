import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { MetricsAuthorizer } from '../../../src/runtime/metrics-auth.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

describe('MetricsAuthorizer', () => {
  let server: LocalApiServer;
  const calls: string[] = [];
  let failing = false;

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        calls.push(req.url ?? '');
        if (failing) {
          res.writeHead(503, { 'Content-Type': 'application/json' });
          res.end('{"kind":"Status","code":503,"message":"down"}');
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { spec: { token?: string; user?: string } };
        res.writeHead(201, { 'Content-Type': 'application/json' });
        if (req.url?.includes('tokenreviews')) {
          const known = body.spec.token === 'reader' || body.spec.token === 'stranger';
          res.end(
            JSON.stringify({ status: known ? { authenticated: true, user: { username: body.spec.token } } : { authenticated: false } }),
          );
        } else res.end(JSON.stringify({ status: { allowed: body.spec.user === 'reader' } }));
      });
    });
  });
  after(() => server.close());

  it('needs a bearer token, a known one, and the right to get /metrics', async () => {
    const authorizer = new MetricsAuthorizer(new KubeHttp(server.kubeConfig));
    assert.deepEqual(await authorizer.check(undefined), { status: 401, reason: 'a bearer token is required' });
    assert.deepEqual(await authorizer.check('Basic dTpw'), { status: 401, reason: 'a bearer token is required' });
    assert.equal((await authorizer.check('Bearer unknown')).status, 401);
    assert.deepEqual(await authorizer.check('Bearer stranger'), { status: 403, reason: 'stranger may not get /metrics' });
    assert.deepEqual(await authorizer.check('Bearer reader'), { status: 200 });
  });

  it('reuses a verdict within its TTL, asks again after it, and never caches a failure to ask', async () => {
    let now = 0;
    const authorizer = new MetricsAuthorizer(new KubeHttp(server.kubeConfig), { cacheTtlMs: 1_000, now: () => now });
    calls.length = 0;
    await authorizer.check('Bearer reader');
    await authorizer.check('Bearer reader');
    assert.equal(calls.length, 2, 'one TokenReview and one SubjectAccessReview for two scrapes');
    now = 1_001;
    await authorizer.check('Bearer reader');
    assert.equal(calls.length, 4);
    failing = true;
    assert.equal((await authorizer.check('Bearer stranger')).status, 500);
    failing = false;
    assert.equal((await authorizer.check('Bearer stranger')).status, 403);
  });
});
