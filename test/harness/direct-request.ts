// Requests straight to the aggregated API server's HTTPS port, not through kube-apiserver: as an
// unauthenticated client, with forged X-Remote-* headers, or with a client certificate (the front
// proxy's, a rogue one, a cluster user's), and bare TLS handshakes. Repeated header lines are sent as arrays.
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { connect } from 'node:tls';
import type { ClientCert } from './pki.ts';

export interface DirectAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export function directRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: OutgoingHttpHeaders; cert?: ClientCert; body?: string } = {},
): Promise<DirectAnswer> {
  const { method = 'GET', headers = {}, cert, body } = options;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: body === undefined ? headers : { 'Content-Length': Buffer.byteLength(body), ...headers },
        rejectUnauthorized: false,
        // A fresh connection each time: a pooled one would carry another test's certificate.
        agent: false,
        ...(cert ? { cert: readFileSync(cert.certFile), key: readFileSync(cert.keyFile) } : {}),
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The SHA-256 fingerprint of the certificate the server presents on a new connection. */
export function servedCertificate(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      resolve(new X509Certificate(raw).fingerprint256);
    });
    socket.on('error', reject);
  });
}

/** The TLS version a client limited to `version` agrees on with the server, or the code of the handshake's failure. */
export function negotiatedTls(port: number, version: 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(
      // OpenSSL's default security level refuses TLS 1.1 on the client side already; level 0 lets it try.
      { host: '127.0.0.1', port, rejectUnauthorized: false, minVersion: version, maxVersion: version, ciphers: 'DEFAULT:@SECLEVEL=0' },
      () => {
        resolve(socket.getProtocol() ?? 'unknown');
        socket.end();
      },
    );
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}
