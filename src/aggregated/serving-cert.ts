// The serving certificate of the aggregated API server, kept in a Secret so every replica serves the
// same one and the APIService's caBundle can trust it (no insecureSkipTLSVerify). A missing, unreadable
// or expiring (under a third of its year left) certificate is replaced; replicas racing to create it
// settle on the first one written. A renewal keeps the previous certificate in ca.crt while it is still
// valid, so the aggregator trusts both while replicas switch (serving-cert-watch.ts).
import { X509Certificate } from 'node:crypto';
import { isConflict, isNotFound, type KubeHttp } from '../runtime/kube-http.ts';
import { selfSignedCert, type ServingCert } from '../runtime/self-signed-cert.ts';

export const servingCertSecretName = 'coder-k8s-apiserver-tls';
export const apiServerServiceName = 'coder-k8s-apiserver';
const lifetimeDays = 365;

export function servingNames(namespace: string): string[] {
  const svc = apiServerServiceName;
  return [`${svc}.${namespace}.svc`, svc, `${svc}.${namespace}`, `${svc}.${namespace}.svc.cluster.local`];
}

export interface SecretBody {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
}

/** What a replica serves, and what the APIService's caBundle holds (PEM). */
export interface ServingMaterial extends ServingCert {
  caBundle: string;
}

const decode = (v: string | undefined) => (v ? Buffer.from(v, 'base64').toString('utf8') : '');

/** The Secret's certificate when it is usable for `names` for more than a third of its lifetime. */
export function usableServingCert(secret: SecretBody, names: string[], now: Date): ServingMaterial | undefined {
  const cert = decode(secret.data?.['tls.crt']);
  const key = decode(secret.data?.['tls.key']);
  if (!cert || !key) return undefined;
  try {
    const x509 = new X509Certificate(cert);
    const from = new Date(x509.validFrom).getTime();
    const to = new Date(x509.validTo).getTime();
    if (to - now.getTime() < (to - from) / 3) return undefined;
    if (!names.every((n) => x509.checkHost(n, { wildcards: false }))) return undefined;
    return { cert, key, caBundle: decode(secret.data?.['ca.crt']) || cert };
  } catch {
    return undefined;
  }
}

/** The Secret's certificate if it has not expired yet: the aggregator may still see it served during a renewal. */
function stillValid(secret: SecretBody | undefined, now: Date): string {
  const cert = decode(secret?.data?.['tls.crt']);
  try {
    return cert && new Date(new X509Certificate(cert).validTo) > now ? cert : '';
  } catch {
    return '';
  }
}

function secretData(cert: ServingMaterial): Record<string, string> {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return { 'tls.crt': b64(cert.cert), 'tls.key': b64(cert.key), 'ca.crt': b64(cert.caBundle) };
}

/** The usable certificate of the Secret, renewed (or created) when there is none. */
export async function ensureServingCert(http: KubeHttp, namespace: string, now = new Date()): Promise<ServingMaterial> {
  const names = servingNames(namespace);
  const path = `/api/v1/namespaces/${namespace}/secrets`;
  for (let attempt = 0; ; attempt++) {
    let existing: SecretBody | undefined;
    try {
      existing = await http.json<SecretBody>('GET', `${path}/${servingCertSecretName}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const current = existing && usableServingCert(existing, names, now);
    if (current) return current;
    const cert = selfSignedCert(names, { days: lifetimeDays, now });
    // The certificate is its own CA: ca.crt is what the APIService's caBundle holds.
    const fresh = { ...cert, caBundle: `${cert.cert}${stillValid(existing, now)}` };
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: {
        name: servingCertSecretName,
        namespace,
        labels: {
          'app.kubernetes.io/name': 'coder-k8s',
          'app.kubernetes.io/component': 'aggregated-apiserver-serving-cert',
          'app.kubernetes.io/managed-by': 'coder-k8s',
        },
        ...(existing?.metadata?.resourceVersion ? { resourceVersion: existing.metadata.resourceVersion } : {}),
      },
      data: secretData(fresh),
    };
    try {
      if (existing) await http.json('PUT', `${path}/${servingCertSecretName}`, { body });
      else await http.json('POST', path, { body });
      return fresh;
    } catch (err) {
      // Another replica wrote first: use its certificate.
      if (!(isConflict(err) && attempt < 3)) throw err;
    }
  }
}
