import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fnv1a64Hex, operatorTokenName } from '../../../../src/coder/operator-access/token-name.ts';

describe('FNV-1a 64', () => {
  // Vectors worked out from the definition (offset 0xcbf29ce484222325, prime 0x100000001b3, xor then
  // multiply modulo 2^64), checked with an independent implementation.
  const vectors: Array<[string, string]> = [
    ['', 'cbf29ce484222325'],
    ['a', 'af63dc4c8601ec8c'],
    ['foobar', '85944171f73967e8'],
    ['default\0coder', 'c50b092ffc0cdd1f'],
    ['ns\0cp', '68913a8a5d498da9'],
  ];
  for (const [input, hash] of vectors) {
    it(`hashes ${JSON.stringify(input)} to ${hash}`, () => assert.equal(fnv1a64Hex(input), hash));
  }

  it('pads to 16 digits and hashes the UTF-8 bytes', () => {
    assert.match(fnv1a64Hex('é'), /^[0-9a-f]{16}$/);
    assert.notEqual(fnv1a64Hex('é'), fnv1a64Hex('e'));
  });
});

describe('operatorTokenName', () => {
  it('names the token after namespace and name', () => {
    assert.equal(operatorTokenName('default', 'coder'), 'coder-k8s-operator-c50b092ffc0cdd1f');
    assert.equal(operatorTokenName('ns', 'cp'), 'coder-k8s-operator-68913a8a5d498da9');
  });

  it('gives two control planes different names, even when the joined strings would coincide', () => {
    assert.notEqual(operatorTokenName('a', 'bc'), operatorTokenName('ab', 'c'));
    assert.notEqual(operatorTokenName('coder', 'coder'), operatorTokenName('default', 'coder'));
  });
});
