// The Secret coder-k8s-apiserver-tls that every replica serves from: ca.crt/ca.key,
// the CA the APIService's caBundle holds, and tls.crt/tls.key, the serving certificate it signed.
// The serving certificate is renewed under the same CA (the caBundle stays as it is) when a third of
// its life is left or it does not name this namespace; a new CA is made only when there is no usable
// one (missing, unreadable, not the CA of ca.key, or itself near expiry), and ca.crt then keeps the
// certificates the aggregator trusted before while they are valid, so replicas still serving the old
// certificate stay trusted until they switch. An unreadable field is replaced, never a reason to stop:
// this keeps the aggregator able to verify whichever certificate a replica serves.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { isConflict, isNotFound, type KubeHttp } from '../../runtime/kube-http.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { ServingCert } from '../../runtime/x509.ts';
import { hasLifeLeft, issueServingCert, newServingCa, readCertificates, servingNames } from './serving-pki.ts';

export { apiServerServiceName, servingNames } from './serving-pki.ts';
export const servingCertSecretName = 'coder-k8s-apiserver-tls';

export interface SecretBody {
  type?: string;
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
}

/** What a replica serves, and what the APIService's caBundle holds (PEM). */
export interface ServingMaterial extends ServingCert {
  caBundle: string;
}

/** What the Secret gives, and the data to write when it needs a new serving certificate or CA. */
export interface ServingPlan {
  material: ServingMaterial;
  /** PEM by key; undefined when the Secret is fine as it is. */
  write?: Record<string, string>;
  /** Why it is written: fields that could not be used, what is renewed. No secret values. */
  reasons: string[];
  /** The write holds a new CA (and so a new caBundle). */
  newCa?: boolean;
}

const decode = (v: string | undefined) => (v ? Buffer.from(v, 'base64').toString('utf8') : '');

function readKey(pem: string): KeyObject | undefined {
  try {
    return createPrivateKey(pem);
  } catch {
    return undefined;
  }
}

/** The serving certificate of tls.crt/tls.key when it is signed by `ca`, names `names` and has life left. */
function usableServing(data: Record<string, string>, ca: X509Certificate, names: string[], now: Date, reasons: string[]) {
  const [certPem, keyPem] = [decode(data['tls.crt']), decode(data['tls.key'])];
  if (!certPem && !keyPem) return undefined;
  const { certs } = readCertificates(certPem);
  const key = readKey(keyPem);
  const cert = certs[0];
  if (!cert) reasons.push('tls.crt is not a PEM certificate');
  else if (!key) reasons.push('tls.key is not a PEM private key');
  else if (!cert.checkPrivateKey(key)) reasons.push('tls.key is not the key of tls.crt');
  else if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) reasons.push('tls.crt is not signed by the CA of ca.crt');
  else if (!hasLifeLeft(cert, now)) reasons.push('tls.crt has less than a third of its lifetime left');
  else if (!names.every((n) => cert.checkHost(n, { wildcards: false })))
    reasons.push('tls.crt does not name the Service in this namespace');
  else return { cert: certPem, key: keyPem };
  return undefined;
}

/** Reads the Secret's data (base64, as the API returns it) and says what to serve and what to write. */
export function planServingSecret(data: Record<string, string> = {}, namespace: string, now: Date): ServingPlan {
  const reasons: string[] = [];
  const bundle = decode(data['ca.crt']);
  const caKeyPem = decode(data['ca.key']);
  const trusted = readCertificates(bundle);
  if (trusted.unreadable) reasons.push('ca.crt holds a block that is not a PEM certificate');
  const caKey = readKey(caKeyPem);
  if (caKeyPem && !caKey) reasons.push('ca.key is not a PEM private key');
  let ca = caKey && trusted.certs.find((c) => c.ca && c.checkPrivateKey(caKey));
  if (caKey && !ca) reasons.push('ca.crt holds no CA certificate of ca.key');
  if (ca && !hasLifeLeft(ca, now)) {
    reasons.push('the CA has less than a third of its lifetime left');
    ca = undefined;
  }
  if (ca && caKey) {
    const serving = usableServing(data, ca, servingNames(namespace), now, reasons);
    if (serving) return { material: { ...serving, caBundle: bundle }, reasons };
    const renewed = issueServingCert({ cert: ca, key: caKey }, namespace, now);
    const material = { ...renewed, caBundle: bundle };
    return { material, write: { 'ca.crt': bundle, 'ca.key': caKeyPem, 'tls.crt': renewed.cert, 'tls.key': renewed.key }, reasons };
  }
  if (!caKeyPem) reasons.push('no CA in ca.key yet');
  // A new CA. The aggregator keeps trusting what it trusted (an older CA, or the self-signed serving
  // certificate of releases before the CA) while that is valid: replicas switch one at a time.
  const newCa = newServingCa(now);
  const previous = [...trusted.certs, ...readCertificates(decode(data['tls.crt'])).certs.filter((c) => c.issuer === c.subject)];
  const stillTrusted = [...new Map(previous.filter((c) => new Date(c.validTo) > now).map((c) => [c.fingerprint256, c])).values()];
  const caBundle = [newCa.cert, ...stillTrusted.map((c) => c.toString())].join('');
  const serving = issueServingCert({ cert: new X509Certificate(newCa.cert), key: createPrivateKey(newCa.key) }, namespace, now);
  return {
    material: { ...serving, caBundle },
    write: { 'ca.crt': caBundle, 'ca.key': newCa.key, 'tls.crt': serving.cert, 'tls.key': serving.key },
    reasons,
    newCa: true,
  };
}

/** The Secret's serving certificate, or a renewed one (and CA) written to it, or a new Secret. */
export async function ensureServingCert(http: KubeHttp, logger: Logger, namespace: string, now = new Date()): Promise<ServingMaterial> {
  const path = `/api/v1/namespaces/${namespace}/secrets`;
  for (let attempt = 0; ; attempt++) {
    let existing: SecretBody | undefined;
    try {
      existing = await http.json<SecretBody>('GET', `${path}/${servingCertSecretName}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const plan = planServingSecret(existing?.data, namespace, now);
    if (!plan.write) return plan.material;
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      // The type of a Secret cannot change: one made by hand keeps its own.
      type: existing?.type ?? 'kubernetes.io/tls',
      metadata: {
        name: servingCertSecretName,
        namespace,
        labels: {
          'app.kubernetes.io/name': 'coder-k8s',
          'app.kubernetes.io/component': 'aggregated-apiserver-serving-ca',
          'app.kubernetes.io/managed-by': 'coder-k8s',
        },
        ...(existing?.metadata?.resourceVersion ? { resourceVersion: existing.metadata.resourceVersion } : {}),
      },
      data: Object.fromEntries(Object.entries(plan.write).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    };
    try {
      if (existing) await http.json('PUT', `${path}/${servingCertSecretName}`, { body });
      else await http.json('POST', path, { body });
      logger.info(
        { secret: { namespace, name: servingCertSecretName }, reasons: plan.reasons, newCa: plan.newCa ?? false },
        plan.newCa ? 'new serving CA and certificate written' : 'serving certificate renewed under the same CA',
      );
      return plan.material;
    } catch (err) {
      // Another replica wrote first: use its certificate.
      if (!(isConflict(err) && attempt < 3)) throw err;
    }
  }
}
