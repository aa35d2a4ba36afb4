// The Coder client refuses a session token no Coder token can be (a line break, CR, NUL, space or other
// character outside visible ASCII) when it is built, before any request; fetch would otherwise refuse the
// header and quote the whole value in its error. Against a real HTTP server on loopback that counts requests.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CoderClient } from '../../../src/coder/client.ts';
import { InvalidCoderTokenError } from '../../../src/coder/errors.ts';

const first = 'AbCdEfGhIj-0123456789abcdefghijkl';
const second = 'second-line-9f3Qk2mZ';

describe('CoderClient session token', () => {
  let server: Server;
  let baseURL: string;
  const tokensSeen: (string | string[] | undefined)[] = [];

  before(async () => {
    server = createServer((req, res) => {
      tokensSeen.push(req.headers['coder-session-token']);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"version":"v2.30.0"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const refused: [string, string][] = [
    ['two lines', `${first}\n${second}`],
    ['a CRLF inside', `${first}\r\n${second}`],
    ['a CR', `${first}\r${second}`],
    ['a NUL', `${first}\0${second}`],
    ['pretty-printed JSON', `{\n  "token": "${first}",\n  "note": "${second}"\n}`],
    ['a space', `${first} ${second}`],
    ['a tab', `${first}\t${second}`],
    ['a trailing newline', `${first}\n`],
    ['a non-ASCII character', `${first}é${second}`],
  ];
  for (const [what, token] of refused) {
    it(`refuses a token with ${what} when built, naming neither part of it, and sends nothing`, () => {
      const sent = tokensSeen.length;
      assert.throws(
        () => new CoderClient({ baseURL, token, retries: 0 }),
        (err: unknown) => {
          assert.ok(err instanceof InvalidCoderTokenError, String(err));
          assert.match(
            err.message,
            /contains a space, line break, control character or non-ASCII character.*store the token alone, on one line/,
          );
          for (const part of [first, second, token]) assert.ok(!err.message.includes(part), 'the message quotes the token');
          assert.ok(!String(err.stack).includes(first), 'the stack quotes the token');
          return true;
        },
      );
      assert.equal(tokensSeen.length, sent, 'no request reached the server');
    });
  }

  it('sends a token of every visible ASCII character as it is', async () => {
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    await new CoderClient({ baseURL, token: visible, retries: 0 }).getBuildInfo();
    assert.equal(tokensSeen.at(-1), visible);
  });
});
