import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { abortableSleep } from '../../../src/runtime/abortable-sleep.ts';

describe('abortableSleep', () => {
  it('leaves no listener on the signal after many sleeps run out', async () => {
    const stop = new AbortController();
    for (let i = 0; i < 20; i++) await abortableSleep(1, stop.signal);
    assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
  });

  it('ends at once when the signal aborts', async () => {
    const stop = new AbortController();
    const started = Date.now();
    const sleeping = abortableSleep(60_000, stop.signal);
    stop.abort();
    await sleeping;
    assert.ok(Date.now() - started < 1_000);
    await abortableSleep(60_000, stop.signal);
  });
});
