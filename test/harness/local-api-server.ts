// A stand-in API server for runtime tests that need misbehaviour a real one never shows (trickled
// bodies, hung writes, watches closed at once): a real HTTP server on loopback, and a KubeConfig for it.
import { KubeConfig } from '@kubernetes/client-node';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalApiServer {
  url: string;
  kubeConfig: KubeConfig;
  /** Stops the server and ends every connection, open watches included. */
  close(): Promise<void>;
}

export async function startLocalApiServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<LocalApiServer> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    kubeConfig: kubeConfigFor(url),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function kubeConfigFor(server: string, user: Record<string, unknown> = {}): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'local', server, skipTLSVerify: true }],
    users: [{ name: 'test', ...user }],
    contexts: [{ name: 'local', cluster: 'local', user: 'test' }],
    currentContext: 'local',
  });
  return kc;
}
