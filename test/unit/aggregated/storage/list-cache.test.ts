import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListCache } from '../../../../src/aggregated/storage/list-cache.ts';

describe('the shared list cache (one Coder list per resource and namespace per 30 s)', () => {
  it('shares one load among callers within the TTL, loads again after it or after invalidate', async () => {
    let now = 0;
    let loads = 0;
    const cache = new ListCache<number>(30_000, () => now);
    const load = async () => ++loads;
    assert.deepEqual(await Promise.all([cache.get('ns', load), cache.get('ns', load), cache.get('ns', load)]), [1, 1, 1]);
    now = 29_999;
    assert.equal(await cache.get('ns', load), 1);
    assert.equal(await cache.get('other', load), 2);
    now = 30_000;
    assert.equal(await cache.get('ns', load), 3);
    cache.invalidate('ns');
    assert.equal(await cache.get('ns', load), 4);
  });

  it('does not keep a failure', async () => {
    const cache = new ListCache<number>(30_000, () => 0);
    await assert.rejects(cache.get('ns', async () => Promise.reject(new Error('down'))));
    assert.equal(await cache.get('ns', async () => 7), 7);
  });
});
