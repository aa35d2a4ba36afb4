import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { truncateUtf8 } from '../../../src/runtime/events.ts';

describe('truncateUtf8', () => {
  it('leaves a short note alone', () => assert.equal(truncateUtf8('ready', 1024), 'ready'));

  it('cuts ASCII at the byte limit', () => assert.equal(truncateUtf8('x'.repeat(2000), 1024), 'x'.repeat(1024)));

  it('never splits a multi-byte character', () => {
    const note = 'é'.repeat(600); // 2 bytes each
    const cut = truncateUtf8(note, 1023);
    assert.equal(cut, 'é'.repeat(511));
    assert.ok(Buffer.byteLength(cut) <= 1023);
  });

  it('never splits an emoji (a surrogate pair, 4 bytes)', () => {
    const cut = truncateUtf8(`ab${'🚀'.repeat(10)}`, 9);
    assert.equal(cut, 'ab🚀');
  });
});
