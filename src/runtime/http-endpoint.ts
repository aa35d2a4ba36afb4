// A small HTTP(S) server on a bind address written like controller-runtime's flags (":8080", "127.0.0.1:0", "0").
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { http } from './builtins.ts';

export interface BindAddress {
  /** Undefined means every interface. */
  host: string | undefined;
  port: number;
}

export interface HttpEndpoint {
  port: number;
  close(): Promise<void>;
  /** Serves new connections with this certificate (TLS endpoints only). */
  setTls?(tls: { cert: string; key: string }): void;
}

export type HttpHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/** Parses "host:port", ":port" or "[v6]:port"; "0" and "" mean disabled (undefined). */
export function parseBindAddress(address: string): BindAddress | undefined {
  const trimmed = address.trim();
  if (trimmed === '' || trimmed === '0') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(trimmed);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) {
    throw new Error(`invalid bind address "${address}": use host:port, :port, [ipv6]:port, or 0 to disable`);
  }
  const host = match[1] ?? match[2];
  return { host: host === '' ? undefined : host, port };
}

/** True for 127.0.0.0/8, ::1 and localhost: an address only this machine can reach. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Starts serving on `address` (over TLS when `tls` is given), or resolves undefined when the address
 * disables the endpoint.
 */
export async function serveHttp(
  address: string,
  handler: HttpHandler,
  tls?: { cert: string; key: string },
): Promise<HttpEndpoint | undefined> {
  const bind = parseBindAddress(address);
  if (!bind) return undefined;
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    Promise.resolve(handler(request, response)).catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('internal error\n');
    });
  };
  const server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, listener) : http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`cannot listen on "${address}": ${err.message}`)));
    server.listen({ host: bind.host, port: bind.port }, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    ...(tls && 'setSecureContext' in server
      ? {
          setTls: (next: { cert: string; key: string }) =>
            server.setSecureContext({ cert: next.cert, key: next.key, minVersion: 'TLSv1.2' }),
        }
      : {}),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections from scrapers would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

/** The request path without its query string. */
export function requestPath(request: IncomingMessage): string {
  return (request.url ?? '/').split('?', 1)[0] ?? '/';
}

export function sendText(response: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}
