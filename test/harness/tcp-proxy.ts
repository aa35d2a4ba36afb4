// A TCP proxy on loopback in front of a server (kube-apiserver, for one process's kubeconfig), that a
// test can cut: open connections are destroyed and new ones dropped until it is restored. An outage
// for that process alone, while the server itself, and every other client of it, goes on.
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Destroys every open connection and drops new ones until `restore`. */
  cut(): void;
  restore(): void;
  stop(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(socket);
      socket.pipe(other);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        open.delete(socket);
        other.destroy();
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      down = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      down = false;
    },
    async stop() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
