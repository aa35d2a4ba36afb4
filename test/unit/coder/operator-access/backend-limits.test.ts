import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  BackendLimitExceeded,
  BackendMessageMeter,
  limitBackendMessages,
  type BackendLimits,
} from '../../../../src/coder/operator-access/backend-limits.ts';
import { inTransaction } from '../../../../src/coder/operator-access/connection.ts';
import { parseDatabaseURL } from '../../../../src/coder/operator-access/database-url.ts';
import { defaultTimeouts } from '../../../../src/coder/operator-access/connection.ts';
import { OperatorAccessError } from '../../../../src/coder/operator-access/errors.ts';
import { hostilePassword, startHostilePostgres, type HostilePostgres } from '../../../harness/hostile-postgres.ts';

const limits: BackendLimits = { messageBytes: 64, connectionBytes: 200 };

/** A backend message of `total` bytes, its type byte and length field included. */
function backendMessage(total: number, type = 'D'): Buffer {
  const b = Buffer.alloc(total, 'x');
  b.write(type, 0, 'latin1');
  b.writeUInt32BE(total - 1, 1);
  return b;
}

/** The chunks a socket may deliver: the bytes cut at each of the given offsets. */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const edges = [0, ...at, bytes.length];
  return edges.slice(1).map((end, i) => bytes.subarray(edges[i], end));
}

function feed(meter: BackendMessageMeter, chunks: Buffer[]): BackendLimitExceeded | undefined {
  for (const chunk of chunks) {
    const breach = meter.check(chunk);
    if (breach) return breach;
  }
  return undefined;
}

describe('BackendMessageMeter', () => {
  it('lets through messages up to the limit however the socket cuts them, headers split included', () => {
    const stream = Buffer.concat([backendMessage(64), backendMessage(5), backendMessage(40)]);
    for (let a = 1; a < stream.length; a++) {
      for (const b of [a + 1, a + 3, a + 7]) {
        if (b >= stream.length) continue;
        assert.equal(feed(new BackendMessageMeter(limits), cut(stream, [a, b])), undefined, `cut at ${a} and ${b}`);
      }
    }
  });

  it('refuses a message longer than the limit as soon as its header has arrived, even a header cut in two', () => {
    const header = backendMessage(65).subarray(0, 5);
    for (let a = 1; a < 5; a++) {
      const breach = feed(new BackendMessageMeter(limits), cut(header, [a]));
      assert.ok(breach instanceof BackendLimitExceeded, `cut at ${a}`);
      assert.equal(breach.breach, 'message');
      assert.equal(breach.limitBytes, 64);
    }
    // The 256 MiB ErrorResponse of the report: five bytes suffice to refuse it.
    const huge = Buffer.from([0x45, 0x10, 0, 0, 0]);
    assert.equal(new BackendMessageMeter().check(huge)?.breach, 'message');
  });

  it('refuses a message that follows small ones in the same chunk', () => {
    const breach = new BackendMessageMeter(limits).check(Buffer.concat([backendMessage(10), backendMessage(10), backendMessage(65)]));
    assert.equal(breach?.breach, 'message');
  });

  it('refuses a length field shorter than itself, which would never advance the framing', () => {
    const bad = Buffer.from([0x44, 0, 0, 0, 3]);
    assert.equal(new BackendMessageMeter(limits).check(bad)?.breach, 'malformed');
  });

  it('refuses the connection once the server has sent more than the connection limit, each message within its own', () => {
    const meter = new BackendMessageMeter(limits);
    assert.equal(feed(meter, [backendMessage(64), backendMessage(64), backendMessage(64)]), undefined);
    const breach = meter.check(backendMessage(9));
    assert.equal(breach?.breach, 'connection');
    assert.equal(breach?.limitBytes, 200);
    // Once broken, it stays broken: nothing more reaches the parser.
    assert.equal(meter.check(Buffer.from([0x5a]))?.breach, 'connection');
  });

  it('holds the default limits the bootstrap runs with: 1 MiB per message, 4 MiB per connection', () => {
    const meter = new BackendMessageMeter();
    assert.equal(meter.check(backendMessage(1024 * 1024)), undefined);
    assert.equal(meter.check(backendMessage(1024 * 1024 + 1).subarray(0, 5))?.breach, 'message');
  });
});

describe('the limit fails closed when pg changes', () => {
  let server: HostilePostgres;
  before(async () => {
    server = await startHostilePostgres({ attack: 'silence', at: 'query' });
  });
  after(() => server.stop());

  const run = (makeClient: (config: pg.ClientConfig) => pg.Client) =>
    inTransaction(
      parseDatabaseURL(server.url('sslmode=disable')),
      { timeouts: { ...defaultTimeouts, totalMs: 5_000 } },
      async () => undefined,
      makeClient,
    );
  /** checkedBeforeConnecting: refused before a socket is opened, rather than with the socket opening. */
  const refusesToConnect = async (makeClient: (config: pg.ClientConfig) => pg.Client, checkedBeforeConnecting: boolean) => {
    const before = server.stats.connections;
    await assert.rejects(run(makeClient), (err: unknown) => {
      assert.ok(err instanceof OperatorAccessError, String(err));
      assert.equal(err.reason, 'Failed');
      assert.match(err.message, /cannot limit the size of what PostgreSQL sends; it does not connect without that limit/);
      assert.ok(!err.message.includes(hostilePassword) && !err.message.includes(String(server.port)), err.message);
      return true;
    });
    if (checkedBeforeConnecting) assert.equal(server.stats.connections, before, 'never connected');
  };
  const client = (change: (connection: Record<string, unknown>) => void) => (config: pg.ClientConfig) => {
    const c = new pg.Client(config);
    change((c as unknown as { connection: Record<string, unknown> }).connection);
    return c;
  };

  it('refuses to connect when pg has no Connection#attachListeners', () =>
    refusesToConnect(
      client((connection) => (connection.attachListeners = undefined)),
      false,
    ));

  it('refuses to connect when pg no longer hands the socket to the parser through attachListeners', () =>
    refusesToConnect(
      client((connection) => {
        const connect = connection.connect as (...args: unknown[]) => unknown;
        connection.connect = function (this: unknown, ...args: unknown[]) {
          return connect.apply(this, args);
        };
      }),
      false,
    ));

  it('refuses the connection when the parser takes its data around the stream it was handed', () =>
    refusesToConnect(
      client((connection) => {
        connection.attachListeners = function (this: { stream: NodeJS.EventEmitter }) {
          this.stream.on('data', () => undefined);
        };
      }),
      true,
    ));

  it('throws from limitBackendMessages itself for a client without a connection', () => {
    assert.throws(() => limitBackendMessages({} as pg.Client), /cannot limit the size/);
  });

  it('connects with the installed pg, the limit in place', async () => {
    // The silent server never answers BEGIN: reaching the deadline there means the connection was made.
    await assert.rejects(
      inTransaction(
        parseDatabaseURL(server.url('sslmode=disable')),
        { timeouts: { ...defaultTimeouts, totalMs: 300 } },
        async () => undefined,
      ),
      /took longer than 0.3 s .* while starting a transaction/,
    );
  });
});

describe('the deadline of the whole call', () => {
  let server: HostilePostgres;
  before(async () => {
    server = await startHostilePostgres({ attack: 'silence', at: 'query' });
  });
  after(() => server.stop());

  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it('ends a call whose server goes quiet at the deadline, not at the per-statement timeout, and leaves no timer behind', async () => {
    const before = timers();
    const started = Date.now();
    await assert.rejects(
      inTransaction(
        parseDatabaseURL(server.url('sslmode=disable')),
        { timeouts: { connectMs: 10_000, statementMs: 10_000, totalMs: 500 } },
        async () => undefined,
      ),
      (err: unknown) => {
        assert.ok(err instanceof OperatorAccessError);
        assert.equal(err.reason, 'Unreachable');
        assert.match(err.message, /^the database server took longer than 0.5 s for the whole bootstrap/);
        assert.ok(!err.message.includes(hostilePassword), err.message);
        return true;
      },
    );
    const took = Date.now() - started;
    assert.ok(took >= 450 && took < 3_000, `ended after ${took} ms`);
    assert.equal(timers(), before, 'the deadline, the close grace and pg timers are all cleared');
  });

  it('clears the deadline when a call fails early too', async () => {
    const huge = await startHostilePostgres({ attack: 'huge-error', at: 'startup' });
    try {
      const before = timers();
      await assert.rejects(
        inTransaction(parseDatabaseURL(huge.url('sslmode=disable')), { timeouts: defaultTimeouts }, async () => undefined),
        /sent a message longer than 1 MiB/,
      );
      assert.equal(timers(), before);
    } finally {
      await huge.stop();
    }
  });
});
