// Readiness probes over HTTP(S) for the harness's components.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * True when GET `url` answers 200. `ca` verifies an https server; 'self-signed' accepts any certificate
 * (kube-controller-manager and kube-scheduler generate theirs in memory).
 */
export function answers200(url: string, ca?: string | 'self-signed'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const tls = ca === 'self-signed' ? { rejectUnauthorized: false } : { ca };
    const req = request(url, { ...tls, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
