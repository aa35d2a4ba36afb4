// The serving certificate of the metrics endpoint: tls.crt and tls.key from --metrics-cert-dir (a
// cert-manager Certificate's Secret, say), read again about once a minute so a renewed certificate is
// served without a restart; else one made at start and signed by itself.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fs } from './builtins.ts';
import type { HttpEndpoint } from './http-endpoint.ts';
import { selfSignedCert, type ServingCert } from './self-signed-cert.ts';

const certReloadMs = 60_000;

export function metricsServingCert(certDir: string | undefined): ServingCert {
  if (!certDir) {
    const names = [hostname(), 'localhost', '127.0.0.1', process.env.POD_IP].filter((n): n is string => Boolean(n));
    return selfSignedCert([...new Set(names)]);
  }
  const read = (file: string) => {
    try {
      return fs.readFileSync(join(certDir, file), 'utf8');
    } catch (err) {
      throw new Error(
        `--metrics-cert-dir: cannot read ${join(certDir, file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  };
  return { cert: read('tls.crt'), key: read('tls.key') };
}

/**
 * Re-reads the certificate in `certDir` every `periodMs` and gives the endpoint any new one; a read that
 * fails (a Secret volume mid-update) keeps the current one and tries again next time. Returns the stop.
 */
export function reloadMetricsCert(
  certDir: string,
  endpoint: HttpEndpoint,
  { periodMs = certReloadMs, onError }: { periodMs?: number; onError?: (err: Error) => void } = {},
): () => void {
  let current = metricsServingCert(certDir);
  const timer = setInterval(() => {
    try {
      const next = metricsServingCert(certDir);
      if (next.cert === current.cert && next.key === current.key) return;
      endpoint.setTls?.(next);
      current = next;
    } catch (err) {
      onError?.(err as Error);
    }
  }, periodMs);
  timer.unref();
  return () => clearInterval(timer);
}
