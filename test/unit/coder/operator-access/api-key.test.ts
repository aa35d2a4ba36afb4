import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { generateToken, hashSecret, randomAlphanumeric, splitToken } from '../../../../src/coder/operator-access/api-key.ts';

describe('generateToken', () => {
  it('makes a 10-character id and a 22-character secret of [0-9A-Za-z], joined by a dash', () => {
    for (let i = 0; i < 200; i++) {
      const { id, secret, token } = generateToken();
      assert.match(id, /^[0-9A-Za-z]{10}$/);
      assert.match(secret, /^[0-9A-Za-z]{22}$/);
      assert.equal(token, `${id}-${secret}`);
    }
  });

  it('never makes the same token twice in 10,000 draws', () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => generateToken().token));
    assert.equal(seen.size, 10_000);
  });
});

describe('randomAlphanumeric', () => {
  it('rejects bytes from 248 up instead of folding them onto the first characters', () => {
    // 248..255 would map to '0'..'7' under a plain modulo; they must be skipped.
    const bytes = [248, 255, 0, 250, 61, 62, 123, 247];
    let at = 0;
    const source = (size: number) => Uint8Array.from({ length: size }, () => bytes[at++ % bytes.length]!);
    assert.equal(randomAlphanumeric(5, source), '0z0zz');
  });

  it('draws every character about equally often', () => {
    const counts = new Map<string, number>();
    const text = randomAlphanumeric(620_000);
    for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    assert.equal(counts.size, 62);
    // Expected 10,000 each (sd 100); modulo bias would give '0'..'7' about 12,500.
    const values = [...counts.values()];
    assert.ok(Math.max(...values) < 10_600 && Math.min(...values) > 9_400, `counts ${Math.min(...values)}..${Math.max(...values)}`);
  });
});

describe('hashSecret', () => {
  it('is the raw 32-byte SHA-256 of the secret part', () => {
    const hash = hashSecret('abcdefghijklmnopqrstuv');
    assert.equal(hash.length, 32);
    assert.deepEqual(hash, createHash('sha256').update('abcdefghijklmnopqrstuv').digest());
    assert.equal(hashSecret('').toString('hex'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('splitToken', () => {
  it('splits at the first dash', () => {
    assert.deepEqual(splitToken('abc-def-ghi'), { id: 'abc', secret: 'def-ghi' });
  });
  for (const token of ['', 'nodash', '-secret', 'id-', '-']) {
    it(`treats ${JSON.stringify(token)} as no token`, () => assert.equal(splitToken(token), undefined));
  }
});
