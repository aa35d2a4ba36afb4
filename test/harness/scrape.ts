// GET /metrics over HTTPS, as Prometheus scrapes a secured operator: with a bearer token, trusting `ca`
// or (as insecure_skip_verify does) any certificate.
import { request } from 'node:https';

export interface ScrapeAnswer {
  status: number;
  body: string;
}

export function scrapeMetrics(port: number, { token, ca }: { token?: string; ca?: string } = {}): Promise<ScrapeAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/metrics',
        ...(ca ? { ca } : { rejectUnauthorized: false }),
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
