// The serving certificate of the metrics endpoint: tls.crt and tls.key from --metrics-cert-dir (a
// cert-manager Certificate's Secret, say), else one made at start and signed by itself.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { selfSignedCert, type ServingCert } from './self-signed-cert.ts';

export function metricsServingCert(certDir: string | undefined): ServingCert {
  if (!certDir) {
    const names = [hostname(), 'localhost', '127.0.0.1', process.env.POD_IP].filter((n): n is string => Boolean(n));
    return selfSignedCert([...new Set(names)]);
  }
  const read = (file: string) => {
    try {
      return readFileSync(join(certDir, file), 'utf8');
    } catch (err) {
      throw new Error(
        `--metrics-cert-dir: cannot read ${join(certDir, file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  };
  return { cert: read('tls.crt'), key: read('tls.key') };
}
