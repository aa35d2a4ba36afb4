// The MCP token file and the Authorization check.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { StartupError } from '../../../src/runtime/startup-error.ts';
import { bearerCheck, readBearerToken } from '../../../src/mcp/bearer-token.ts';
import { tempDir } from '../../harness/temp-dir.ts';

const dir = tempDir('mcp-token');
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const token = 'a'.repeat(16) + 'B'.repeat(16);

describe('the MCP bearer token', () => {
  it('reads the token without one trailing newline (LF or CRLF)', () => {
    assert.equal(readBearerToken(file('lf', `${token}\n`)), token);
    assert.equal(readBearerToken(file('crlf', `${token}\r\n`)), token);
    assert.equal(readBearerToken(file('bare', token)), token);
  });

  it('refuses a missing, empty, short or multi-word file with one line naming it', () => {
    const cases: [string, RegExp][] = [
      [join(dir, 'absent'), /^read --mcp-token-file ".*absent": no such file$/],
      [file('empty', '\n'), /is empty/],
      [file('short', `${'x'.repeat(31)}\n`), /holds 31 bytes; at least 32 are required$/],
      [file('spaces', `${token} ${token}`), /must hold a single token without whitespace$/],
      [file('lines', `${token}\n\n`), /without whitespace/],
    ];
    for (const [path, message] of cases) {
      assert.throws(
        () => readBearerToken(path),
        (err: Error) => err instanceof StartupError && message.test(err.message) && !err.message.includes('\n'),
      );
    }
  });

  it('accepts exactly "Bearer <token>", the scheme in any case', () => {
    const check = bearerCheck(token);
    assert.equal(check(`Bearer ${token}`), true);
    assert.equal(check(`bEaReR ${token}`), true);
    for (const header of [
      undefined,
      '',
      token,
      `Bearer ${token}x`,
      `Bearer ${token.slice(1)}`,
      `Bearer  ${token}`,
      `Bearer ${token} extra`,
      `Basic ${token}`,
    ]) {
      assert.equal(check(header), false, String(header));
    }
  });
});
