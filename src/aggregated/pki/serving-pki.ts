// The aggregated API server's own small PKI: a CA (10 years) that the APIService's
// caBundle trusts, and the serving certificate (1 year) it signs for the Service's names, so renewing
// the serving certificate leaves the caBundle as it is.
import { X509Certificate } from 'node:crypto';
import { issueCertificate, type Issuer, type ServingCert } from '../../runtime/x509.ts';

export const apiServerServiceName = 'coder-k8s-apiserver';
const dayMs = 86_400_000;
const caLifetimeDays = 3650;
const servingLifetimeDays = 365;

/** The names kube-apiserver may dial the Service by; the first is the one it uses. */
export function servingNames(namespace: string): string[] {
  const svc = apiServerServiceName;
  return [`${svc}.${namespace}.svc`, svc, `${svc}.${namespace}`, `${svc}.${namespace}.svc.cluster.local`];
}

export function newServingCa(now: Date): ServingCert {
  return issueCertificate({
    subject: [
      ['O', 'coder-k8s'],
      ['CN', `coder-k8s-apiserver-ca@${Math.floor(now.getTime() / 1000)}`],
    ],
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(now.getTime() + caLifetimeDays * dayMs),
    ca: true,
  });
}

/** A serving certificate for the Service in `namespace`, signed by `ca`, never outliving it. */
export function issueServingCert(ca: Issuer, namespace: string, now: Date): ServingCert {
  const names = servingNames(namespace);
  const caExpiry = new Date(ca.cert.validTo).getTime();
  return issueCertificate({
    subject: [['CN', names[0]!]],
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(Math.min(now.getTime() + servingLifetimeDays * dayMs, caExpiry)),
    names,
    issuer: ca,
  });
}

/** More than a third of the certificate's lifetime is left: not due for renewal. */
export function hasLifeLeft(cert: X509Certificate, now: Date): boolean {
  const from = new Date(cert.validFrom).getTime();
  const to = new Date(cert.validTo).getTime();
  return to - now.getTime() > (to - from) / 3;
}

/** The certificates of a PEM bundle, and how many of its blocks could not be read. */
export function readCertificates(pem: string): { certs: X509Certificate[]; unreadable: number } {
  const certs: X509Certificate[] = [];
  let unreadable = 0;
  for (const block of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
    try {
      certs.push(new X509Certificate(block));
    } catch {
      unreadable++;
    }
  }
  return { certs, unreadable: pem.trim() && !certs.length && !unreadable ? 1 : unreadable };
}
