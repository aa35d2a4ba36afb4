import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExponentialBackoff, TokenBucket } from '../../../src/runtime/rate-limiter.ts';
import { WorkQueue } from '../../../src/runtime/work-queue.ts';

const noLimit = { when: () => 0, forget: () => undefined, failures: () => 0 };
const nextTick = () => new Promise((r) => setImmediate(r));

describe('WorkQueue', () => {
  it('measures how long the oldest key in flight has been processing, and 0 when none is', async () => {
    const q = new WorkQueue(noLimit);
    assert.equal(q.longestInFlightMs(), 0);
    q.add('a');
    q.add('b');
    await q.get();
    const afterFirst = performance.now();
    await new Promise((r) => setTimeout(r, 20));
    await q.get();
    const now = performance.now();
    assert.ok(q.longestInFlightMs(now) >= now - afterFirst, 'a, taken first, sets the figure');
    q.done('a');
    q.done('b');
    assert.equal(q.longestInFlightMs(), 0);
  });

  it('keeps one entry per key however often it is added', async () => {
    const q = new WorkQueue(noLimit);
    for (let i = 0; i < 5; i++) q.add('ns/a');
    q.add('ns/b');
    assert.equal(q.length, 2);
    assert.equal(await q.get(), 'ns/a');
    assert.equal(await q.get(), 'ns/b');
    assert.equal(q.length, 0);
  });

  it('hands out higher priorities first, and one priority in the order added', async () => {
    const q = new WorkQueue(noLimit);
    q.add('new-1');
    q.add('new-2');
    q.add('owned-1', 1);
    q.add('new-3');
    q.add('owned-2', 1);
    const order = [];
    for (let i = 0; i < 5; i++) order.push(await q.get());
    assert.deepEqual(order, ['owned-1', 'owned-2', 'new-1', 'new-2', 'new-3']);
    assert.equal(q.length, 0);
  });

  it('moves a queued key up when it is added again at a higher priority, never down', async () => {
    const q = new WorkQueue(noLimit);
    q.add('a', 1);
    q.add('b');
    q.add('c');
    q.add('c', 1);
    q.add('a');
    assert.equal(q.length, 3);
    assert.deepEqual([await q.get(), await q.get(), await q.get()], ['a', 'c', 'b']);
  });

  it('queues a key added while in flight at the highest priority it was added with', async () => {
    const q = new WorkQueue(noLimit);
    q.add('a');
    const running = await q.get();
    q.add('b');
    q.add('a');
    q.add('a', 1);
    q.done(running!);
    assert.deepEqual([await q.get(), await q.get()], ['a', 'b']);
  });

  it('never hands out a key that is being processed; a re-add runs after done()', async () => {
    const q = new WorkQueue(noLimit);
    q.add('a');
    const first = await q.get();
    q.add('a');
    q.add('b');
    assert.equal(await q.get(), 'b', 'a is in flight, so b comes next');
    let second: string | undefined;
    void q.get().then((k) => {
      second = k;
    });
    await nextTick();
    assert.equal(second, undefined, 'a is not handed out while in flight');
    q.done(first!);
    await nextTick();
    assert.equal(second, 'a');
  });

  it('wakes a waiting get() when a key arrives', async () => {
    const q = new WorkQueue(noLimit);
    const waiting = q.get();
    q.add('x');
    assert.equal(await waiting, 'x');
  });

  it('delays addAfter, keeping the earliest of several delays', async () => {
    const q = new WorkQueue(noLimit);
    q.addAfter('k', 10_000);
    q.addAfter('k', 20);
    q.addAfter('k', 5_000);
    assert.equal(q.length, 0);
    const started = Date.now();
    assert.equal(await q.get(), 'k');
    assert.ok(Date.now() - started < 4_000);
    q.shutDown();
  });

  it('drops a delayed add on request, and only that one', async () => {
    const q = new WorkQueue(noLimit);
    q.addAfter('a', 10);
    q.addAfter('b', 10);
    q.cancelAfter('a');
    q.cancelAfter('c');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(q.length, 1);
    assert.equal(await q.get(), 'b');
  });

  it('backs a failing key off exponentially and forgets on success', () => {
    const backoff = new ExponentialBackoff(5, 1_000_000);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => backoff.when('k')),
      [5, 10, 20, 40],
    );
    assert.equal(backoff.failures('k'), 4);
    assert.equal(backoff.when('other'), 5, 'per key');
    backoff.forget('k');
    assert.equal(backoff.when('k'), 5);
    const capped = new ExponentialBackoff(5, 1_000_000);
    for (let i = 0; i < 40; i++) capped.when('k');
    assert.equal(capped.when('k'), 1_000_000);
  });

  it('limits all keys together with a token bucket after the burst', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 3, () => now);
    assert.deepEqual([bucket.when(), bucket.when(), bucket.when()], [0, 0, 0]);
    assert.equal(bucket.when(), 100);
    assert.equal(bucket.when(), 200);
    now += 1_000;
    assert.equal(bucket.when(), 0, 'refilled after a second');
  });

  it('on shutdown hands out nothing more, drops queued keys and lets in-flight ones finish', async () => {
    const q = new WorkQueue(noLimit);
    q.add('running');
    q.add('queued');
    const running = await q.get();
    const waiter = new WorkQueue(noLimit);
    const pending = waiter.get();
    q.shutDown();
    waiter.shutDown();
    assert.equal(await q.get(), undefined);
    assert.equal(await pending, undefined);
    q.add('late');
    assert.equal(q.length, 0);
    q.done(running!);
    assert.equal(q.inFlight, 0);
  });
});
