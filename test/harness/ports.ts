// Free TCP ports on loopback for the harness's servers. A port is picked at random below the kernel's
// ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default) and checked by binding it:
// a port the kernel handed out as ephemeral could be taken again as the source port of any outgoing
// connection (etcd clients, kube-apiserver, Coder and its agents make many) between our check and the
// server's own bind, which is how two suites' processes collided with EADDRINUSE.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const [lowest, highest] = [20_000, ephemeralStart() - 1];
const handedOut = new Set<number>();

function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > lowest + 1000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`ports: no free port on 127.0.0.1 between ${lowest} and ${highest} after 200 tries`);
}
