import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedCache } from '../../../src/runtime/bounded-cache.ts';

describe('BoundedCache', () => {
  it('keeps at most maxEntries, dropping the one written longest ago', () => {
    const cache = new BoundedCache<number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 3); // rewritten: now the newest
    cache.set('c', 4);
    assert.equal(cache.size, 2);
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.get('a'), 3);
    assert.equal(cache.get('c'), 4);
  });

  it('reads an entry as absent once it is ttlMs old, and again present when rewritten', () => {
    let now = 0;
    const cache = new BoundedCache<string>({ maxEntries: 10, ttlMs: 1_000, now: () => now });
    cache.set('k', 'v');
    now = 999;
    assert.equal(cache.get('k'), 'v');
    now = 1_000;
    assert.equal(cache.get('k'), undefined);
    cache.set('k', 'w');
    assert.equal(cache.get('k'), 'w');
  });

  it('drops expired entries as it goes, so they hold no memory', () => {
    let now = 0;
    const cache = new BoundedCache<string>({ maxEntries: 10, ttlMs: 1_000, now: () => now });
    cache.set('a', 'v');
    cache.set('b', 'v');
    now = 500;
    cache.set('c', 'v');
    now = 1_000;
    cache.set('d', 'v');
    assert.equal(cache.size, 2, 'a and b went when d was written');
    now = 1_500;
    assert.equal(cache.get('c'), undefined);
    assert.equal(cache.size, 1, 'c went when it was read');
  });

  it('without a ttl, keeps entries until evicted', () => {
    let now = 0;
    const cache = new BoundedCache<string>({ maxEntries: 1, now: () => now });
    cache.set('k', 'v');
    now = Number.MAX_SAFE_INTEGER;
    assert.equal(cache.get('k'), 'v');
  });

  it('forgets a deleted key at once', () => {
    const cache = new BoundedCache<string>({ maxEntries: 2 });
    cache.set('k', 'v');
    cache.delete('k');
    assert.equal(cache.get('k'), undefined);
    assert.equal(cache.size, 0);
  });
});
