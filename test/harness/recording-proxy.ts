// An HTTP proxy on loopback in front of a server (the real Coder), recording each request it forwards:
// method, path, status and time, never a header or body. A test points one client (the operator's
// --test-only-coder-url) at it to count the calls the server received from that client alone. Websocket
// upgrades are piped through unrecorded beyond their request line.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface RecordedCall {
  method: string;
  /** The path without the query. */
  path: string;
  /** The status the server answered; 0 when the upstream call failed. */
  status: number;
  at: Date;
}

export interface RecordingProxy {
  /** http://127.0.0.1:<port>. */
  readonly url: string;
  readonly calls: readonly RecordedCall[];
  /** The calls since `from` whose path starts with `prefix`. */
  since(from: Date, prefix?: string): RecordedCall[];
  stop(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const port = Number(upstream.port || 80);
  const calls: RecordedCall[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const call: RecordedCall = { method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]!, status: 0, at: new Date() };
    calls.push(call);
    const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
    const forward = httpRequest({ host: upstream.hostname, port, method: req.method, path: req.url, headers }, (answer) => {
      call.status = answer.statusCode ?? 0;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req, client, head) => {
    calls.push({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]!, status: 101, at: new Date() });
    const socket = connect(port, upstream.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!;
        lines.push(`${name}: ${name.toLowerCase() === 'host' ? upstream.host : req.rawHeaders[i + 1]}`);
      }
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) socket.write(head);
      socket.pipe(client);
      client.pipe(socket);
    });
    for (const [a, b] of [
      [socket, client],
      [client, socket],
    ] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls,
    since: (from, prefix = '') => calls.filter((c) => c.at >= from && c.path.startsWith(prefix)),
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
