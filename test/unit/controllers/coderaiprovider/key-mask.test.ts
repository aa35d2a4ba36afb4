import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coderKeyMask } from '../../../../src/controllers/coderaiprovider/key-mask.ts';

describe('the mask Coder shows for a provider key', () => {
  // What the real Coder v2.36.0 answered for these keys (api_keys[].masked).
  const answered: [string, string][] = [
    ['sk-aaaa-0000000000000001', 'sk-a...0001'],
    ['sk-new-rotated-00000009', 'sk-n...0009'],
    ['short-key-12', 'sh...12'],
    ['abc', '...'],
  ];
  for (const [key, masked] of answered) {
    it(`masks a key of ${key.length} characters as Coder does (${masked})`, () => assert.equal(coderKeyMask(key), masked));
  }

  it('shows one character at each end from 5 characters, and counts characters, not bytes', () => {
    assert.equal(coderKeyMask('sk-a-0001'), 's...1');
    assert.equal(coderKeyMask('abcd'), '...');
    assert.equal(coderKeyMask('ключ-0001'), 'к...1');
  });
});
