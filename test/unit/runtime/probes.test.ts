import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startProbeServer, type ProbeResult } from '../../../src/runtime/probes.ts';

async function withProbes(
  checks: { healthz: () => ProbeResult; readyz: () => ProbeResult },
  body: (get: (path: string) => Promise<{ status: number; text: string }>) => Promise<void>,
): Promise<void> {
  const server = await startProbeServer('127.0.0.1:0', checks);
  assert.ok(server);
  try {
    await body(async (path) => {
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
      return { status: response.status, text: await response.text() };
    });
  } finally {
    await server.close();
  }
}

describe('startProbeServer', () => {
  it('answers 200 "ok" while the checks pass', async () => {
    await withProbes({ healthz: () => ({ ok: true }), readyz: () => ({ ok: true }) }, async (get) => {
      assert.deepEqual(await get('/healthz'), { status: 200, text: 'ok' });
      assert.deepEqual(await get('/readyz'), { status: 200, text: 'ok' });
    });
  });

  it('answers 503 with one reason per line when a check fails', async () => {
    const readyz = (): ProbeResult => ({
      ok: false,
      reasons: ['informer codercontrolplanes has not synced', 'informer secrets is stale\n(no event for 5m)'],
    });
    await withProbes({ healthz: () => ({ ok: true }), readyz }, async (get) => {
      assert.deepEqual(await get('/readyz'), {
        status: 503,
        text: 'informer codercontrolplanes has not synced\ninformer secrets is stale (no event for 5m)\n',
      });
      assert.equal((await get('/healthz')).status, 200);
    });
  });

  it('lists the outcome with ?verbose', async () => {
    await withProbes({ healthz: () => ({ ok: true }), readyz: () => ({ ok: false, reasons: ['not synced'] }) }, async (get) => {
      assert.deepEqual(await get('/healthz?verbose'), { status: 200, text: '[+]healthz ok\nhealthz check passed\n' });
      assert.deepEqual(await get('/readyz?verbose=1'), { status: 503, text: '[-]not synced\nreadyz check failed\n' });
    });
  });

  it('fails a check that throws, without a secret in the answer', async () => {
    const healthz = (): ProbeResult => {
      throw new Error('lost postgres://u:pw@db/x');
    };
    await withProbes({ healthz, readyz: () => ({ ok: true }) }, async (get) => {
      assert.deepEqual(await get('/healthz'), { status: 503, text: 'check threw: lost postgres://REDACTED@db/x\n' });
    });
  });

  it('answers 404 for any other path', async () => {
    await withProbes({ healthz: () => ({ ok: true }), readyz: () => ({ ok: true }) }, async (get) => {
      assert.equal((await get('/livez')).status, 404);
      assert.equal((await get('/metrics')).status, 404);
    });
  });

  it('is disabled by "0"', async () => {
    assert.equal(await startProbeServer('0', { healthz: () => ({ ok: true }), readyz: () => ({ ok: true }) }), undefined);
  });
});
