// The Coder client's ceilings on what an answer may bring in, and its abort signal, against a real HTTP
// server on loopback that answers whatever each test needs.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CoderClient } from '../../../src/coder/client.ts';
import { CoderApiError, CoderResponseTooLargeError } from '../../../src/coder/errors.ts';
import { defaultMaxResponseBytes } from '../../../src/coder/response-body.ts';

const token = 'AbCdEfGhIj-0123456789abcdefghijkl';
const MiB = 1024 * 1024;

describe('CoderClient response limits and abort signal', () => {
  let server: Server;
  let baseURL: string;
  let handler: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  let requests = 0;

  before(async () => {
    server = createServer((req, res) => {
      requests++;
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = (options: { maxResponseBytes?: number } = {}) =>
    new CoderClient({ baseURL, token, retries: 0, timeoutMs: 60_000, ...options });

  /** Streams `total` bytes of a JSON array (without Content-Length) and reports how many were written before the client hung up. */
  function streamHuge(total: number): Promise<number> {
    return new Promise((resolve) => {
      handler = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, '1,');
        let written = 0;
        const pump = () => {
          while (written < total) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => resolve(written));
        res.write('[');
        pump();
      };
    });
  }

  it(`fails a success body over the limit (${defaultMaxResponseBytes / MiB} MiB by default) naming the endpoint and limit, without reading the rest`, async (t) => {
    const sent = streamHuge(300 * MiB);
    const rssBefore = process.memoryUsage().rss;
    await assert.rejects(client().listLicenses(), (err: unknown) => {
      assert.ok(err instanceof CoderResponseTooLargeError, String(err));
      assert.equal(
        err.message,
        `Coder API GET /api/v2/licenses answered with a body larger than the limit of ${defaultMaxResponseBytes} bytes; the call failed`,
      );
      return true;
    });
    const written = await sent;
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    t.diagnostic(
      `the server wrote ${(written / MiB).toFixed(1)} MiB of a 300 MiB body before the client hung up; RSS grew ${(rssGrowth / MiB).toFixed(1)} MiB`,
    );
    // Socket buffers on loopback take a few MiB more than the client reads; 300 MiB would pass any such margin.
    assert.ok(written < 64 * MiB, `the server could write ${written} bytes`);
  });

  it('refuses at once a body whose Content-Length is over the limit', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(1024 * MiB) });
      res.write('[');
    };
    await assert.rejects(client().getEntitlements(), CoderResponseTooLargeError);
  });

  it('reads a body up to the limit, and fails one byte over it', async () => {
    const body = JSON.stringify({ version: 'v2.30.0', padding: 'x'.repeat(1000) });
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(body);
    };
    assert.equal((await client({ maxResponseBytes: body.length }).getBuildInfo()).version, 'v2.30.0');
    await assert.rejects(client({ maxResponseBytes: body.length - 1 }).getBuildInfo(), CoderResponseTooLargeError);
  });

  it('keeps a bounded excerpt of a 10 MB error message, with the token still redacted', async () => {
    const message = `${token} ${'m'.repeat(10 * MiB)}`;
    handler = (_req, res) => {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          message,
          detail: 'd'.repeat(5000),
          validations: Array.from({ length: 500 }, (_, i) => ({ field: `f${i}`, detail: 'v' })),
        }),
      );
    };
    const err = await client()
      .uploadLicense('jwt')
      .then(
        () => assert.fail('succeeded'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof CoderApiError, String(err));
    assert.equal(err.status, 400);
    assert.ok(err.message.length <= 4_001, `the message is ${err.message.length} characters long`);
    assert.ok(!err.message.includes(token), 'the token is redacted');
    assert.match(err.message, /^Coder API POST \/api\/v2\/licenses answered 400/);
  });

  it('keeps at most 1000 characters of a message, 20 validations of 200 characters, and 4000 in all', async () => {
    handler = (_req, res) => {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          message: `${token} ${'m'.repeat(20_000)}`,
          detail: 'd'.repeat(5000),
          validations: Array.from({ length: 50 }, (_, i) => ({ field: `f${i}`, detail: 'v'.repeat(500) })),
        }),
      );
    };
    const err = await client()
      .uploadLicense('jwt')
      .catch((e: unknown) => e);
    assert.ok(err instanceof CoderApiError);
    assert.ok(err.coderMessage!.length <= 1_040, `coderMessage is ${err.coderMessage!.length} long`);
    assert.match(err.coderMessage!, /^\[REDACTED\] m+… \(\d+ more characters\)$/);
    assert.equal(err.validations!.length, 20);
    assert.ok(err.validations!.every((v) => v.detail.length <= 240));
    assert.ok(err.message.length <= 4_001, `the message is ${err.message.length} characters long`);
  });

  it('ends a call promptly when its signal aborts, and sends nothing for a signal aborted before', async () => {
    handler = () => undefined; // never answers
    const controller = new AbortController();
    const reason = new Error('reconcile cancelled');
    const pending = client().getEntitlements({ signal: controller.signal });
    while (requests === 0) await new Promise((resolve) => setImmediate(resolve));
    const abortedAt = Date.now();
    controller.abort(reason);
    await assert.rejects(pending, (err) => err === reason);
    assert.ok(Date.now() - abortedAt < 5_000);

    const before = requests;
    await assert.rejects(client().listLicenses({ signal: AbortSignal.abort(reason) }), (err) => err === reason);
    assert.equal(requests, before, 'no request was sent');
  });
});
