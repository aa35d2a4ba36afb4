import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coderVersionAtLeast, parseCoderVersion } from '../../../../../src/controllers/shared/coder-object/coder-version.ts';

describe('Coder versions', () => {
  it('reads release, candidate and development versions', () => {
    assert.deepEqual(parseCoderVersion('v2.34.1'), { major: 2, minor: 34, patch: 1 });
    assert.deepEqual(parseCoderVersion('v2.36.0-rc.1'), { major: 2, minor: 36, patch: 0 });
    assert.deepEqual(parseCoderVersion('2.30.0-devel+abc123'), { major: 2, minor: 30, patch: 0 });
    assert.equal(parseCoderVersion('unknown'), undefined);
  });

  const rows: [string | undefined, string, boolean | undefined][] = [
    ['v2.33.9', 'v2.34.0', false],
    ['v2.34.0', 'v2.34.0', true],
    ['v2.34.0-rc.2', 'v2.34.0', true],
    ['v2.35.0', 'v2.34.0', true],
    ['v3.0.0', 'v2.36.0', true],
    ['v1.99.0', 'v2.0.0', false],
    ['v0.0.0-devel+1234', 'v2.34.0', undefined],
    ['nonsense', 'v2.34.0', undefined],
    [undefined, 'v2.34.0', undefined],
  ];
  for (const [running, minimum, expected] of rows) {
    it(`${running} against ${minimum} is ${expected}`, () => assert.equal(coderVersionAtLeast(running, minimum), expected));
  }
});
