// A GET through kube-apiserver as the admin whose answer may stay open (a followed log): its status and
// headers at once, the body as it arrives, and a close() that goes away as a client would.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { request, type RequestOptions } from 'node:https';
import type { ControlPlane } from './control-plane.ts';

export interface ApiStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body received so far. */
  text(): string;
  /** Resolves when the server ended the body (or the connection closed). */
  ended: Promise<void>;
  close(): void;
}

export async function openApiStream(cp: ControlPlane, path: string, headers: OutgoingHttpHeaders = {}): Promise<ApiStream> {
  const url = new URL(path, cp.server);
  const options: RequestOptions = { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers, agent: false };
  await cp.adminConfig().applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const req = request(options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      const ended = new Promise<void>((done) => res.on('close', done));
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text: () => body, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
