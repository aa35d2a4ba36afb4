// A self-signed serving certificate (ECDSA P-256) for the metrics endpoint when no --metrics-cert-dir
// is given, as controller-runtime does.
import { isIP } from 'node:net';
import { issueCertificate, type ServingCert } from './x509.ts';

export type { ServingCert } from './x509.ts';

/** A certificate for `names` (DNS names and IP addresses), valid from an hour ago for `days`. */
export function selfSignedCert(names: string[], { days = 365, now = new Date() }: { days?: number; now?: Date } = {}): ServingCert {
  return issueCertificate({
    subject: [['CN', names.find((n) => isIP(n) === 0) ?? 'coder-k8s']],
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(now.getTime() + days * 86_400_000),
    names,
  });
}
