// A database server that attacks its client: a TCP server speaking just enough of PostgreSQL's wire
// protocol (v3) to get past the startup, with or without TLS, and then sending what no PostgreSQL sends.
import { createServer, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';

export type HostileAttack =
  /** One ErrorResponse whose length field announces messageBytes, its body then streamed to the end. */
  | 'huge-error'
  /** NoticeResponses of 512 KiB each, each one well-formed, without end. */
  | 'endless-notices'
  /** Nothing: the server goes quiet, keeping the connection open. */
  | 'silence';

export interface HostilePostgresOptions {
  attack: HostileAttack;
  /** In answer to the startup message, or to the first statement after a normal startup (AuthenticationOk, ReadyForQuery). */
  at?: 'startup' | 'query';
  /** Answers an SSLRequest with 'S' and a TLS handshake with this certificate (PEM); without it, with 'N'. */
  tls?: { cert: string; key: string };
  /** The length huge-error announces (its type byte included); 256 MiB by default. */
  messageBytes?: number;
}

export interface HostilePostgres {
  port: number;
  /** A postgres:// URL for this server; query is appended as it is (sslmode=..., say). */
  url(query?: string): string;
  /** What the server saw and did, for assertions. */
  readonly stats: { connections: number; sslRequests: number; attackBytesSent: number; connectedAt: number[] };
  stop(): Promise<void>;
}

/** The password in url(): a test checks that no message quotes it. */
export const hostilePassword = 'pw-hostile-probe';

const sslRequestCode = 80877103;
const gssEncRequestCode = 80877104;
const protocol3 = 196608;
const chunkBytes = 64 * 1024;

/** Reads exact byte counts off a stream; detach() hands the stream over (to a TLS socket) with nothing read ahead. */
function reader(stream: Duplex) {
  let buffered = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  let closed = false;
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake?.();
  };
  const onClose = () => {
    closed = true;
    wake?.();
  };
  stream.on('data', onData);
  stream.on('close', onClose);
  return {
    async read(n: number): Promise<Buffer> {
      while (buffered.length < n) {
        if (closed) throw new Error('hostile-postgres: the client closed the connection');
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      const out = buffered.subarray(0, n);
      buffered = buffered.subarray(n);
      return out;
    },
    detach() {
      stream.off('data', onData);
      stream.off('close', onClose);
      stream.pause();
    },
  };
}

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const int32 = (...values: number[]) => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeInt32BE(v, 4 * i));
  return b;
};

/** AuthenticationOk, a ParameterStatus, BackendKeyData and ReadyForQuery: what pg needs to finish connecting. */
const startupAnswer = Buffer.concat([
  message('R', int32(0)),
  message('S', Buffer.from('server_version\x0016.0\x00', 'latin1')),
  message('K', int32(4242, 4242)),
  message('Z', Buffer.from('I')),
]);

/** Writes the chunks until they run out or the peer is gone, waiting for drain so this process holds only a chunk. */
async function stream(out: Duplex, chunks: Iterable<Buffer>, sent: (n: number) => void): Promise<void> {
  for (const chunk of chunks) {
    if (out.destroyed || out.writableEnded) return;
    sent(chunk.length);
    if (!out.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          out.off('drain', done);
          out.off('close', done);
          resolve();
        };
        out.on('drain', done);
        out.on('close', done);
      });
    }
  }
}

function* hugeError(messageBytes: number): Iterable<Buffer> {
  // 'E', the length, then fields: severity, code, and a message of 'x' that fills the announced length.
  const head = Buffer.concat([Buffer.from('E'), int32(messageBytes - 1), Buffer.from('SERROR\x00CXX000\x00M', 'latin1')]);
  yield head;
  let left = messageBytes - head.length - 2;
  const filler = Buffer.alloc(chunkBytes, 'x');
  while (left > 0) {
    const n = Math.min(left, chunkBytes);
    yield n === chunkBytes ? filler : filler.subarray(0, n);
    left -= n;
  }
  yield Buffer.from([0, 0]);
}

function* endlessNotices(): Iterable<Buffer> {
  const notice = message(
    'N',
    Buffer.concat([Buffer.from('SNOTICE\x00M', 'latin1'), Buffer.alloc(512 * 1024 - 16, 'x'), Buffer.from([0, 0])]),
  );
  for (;;) yield notice;
}

export async function startHostilePostgres(options: HostilePostgresOptions): Promise<HostilePostgres> {
  const stats = { connections: 0, sslRequests: 0, attackBytesSent: 0, connectedAt: [] as number[] };
  const sockets = new Set<Socket>();

  const attack = async (out: Duplex) => {
    const sent = (n: number) => (stats.attackBytesSent += n);
    if (options.attack === 'huge-error') await stream(out, hugeError(options.messageBytes ?? 256 * 1024 * 1024), sent);
    else if (options.attack === 'endless-notices') await stream(out, endlessNotices(), sent);
  };

  const serve = async (socket: Socket) => {
    let conn: Duplex = socket;
    let input = reader(socket);
    for (;;) {
      const length = (await input.read(4)).readUInt32BE(0);
      const code = (await input.read(4)).readUInt32BE(0);
      if (code === sslRequestCode && options.tls) {
        stats.sslRequests++;
        input.detach();
        socket.write('S');
        const secure = new TLSSocket(socket, { isServer: true, cert: options.tls.cert, key: options.tls.key });
        secure.on('error', () => undefined);
        conn = secure;
        input = reader(secure);
        continue;
      }
      if (code === sslRequestCode || code === gssEncRequestCode) {
        if (code === sslRequestCode) stats.sslRequests++;
        conn.write('N');
        continue;
      }
      if (code !== protocol3) return conn.destroy();
      await input.read(length - 8);
      break;
    }
    if (options.at === 'query') {
      conn.write(startupAnswer);
      await input.read(1);
    }
    await attack(conn);
  };

  const server = createServer((socket) => {
    stats.connections++;
    stats.connectedAt.push(Date.now());
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    serve(socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: (query) => `postgres://coder:${hostilePassword}@127.0.0.1:${port}/coder${query ? `?${query}` : ''}`,
    stats,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
