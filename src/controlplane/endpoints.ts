// Where a CoderControlPlane is reached, for its own controller and for every kind that refers to it:
// its Service's host and ports, status.url, the plain-HTTP URL the operator calls Coder on, and the
// name of the Secret that holds the operator token.
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { fnv32a } from '../runtime/object-names.ts';

const defaultServicePort = 80;
/** The suffix of a control plane's default operator token Secret name, which no other kind may use for a Secret it creates. */
export const operatorTokenSecretSuffix = '-operator-token';
/** The key of the operator token in its Secret. */
export const operatorTokenKey = 'token';

/** Built-in TLS is on when spec.tls.secretNames has at least one entry. */
export function tlsEnabled(cp: CoderControlPlane): boolean {
  return (cp.spec?.tls?.secretNames?.length ?? 0) > 0;
}

/** spec.service.port, or 80 when unset or 0. */
export function servicePort(cp: CoderControlPlane): number {
  return cp.spec?.service?.port || defaultServicePort;
}

/**
 * The Service port that reaches Coder's plain HTTP listener: the service port, except 80 when TLS is
 * on and the service port is 443 (then 443 is the HTTPS port and HTTP moves to 80).
 */
export function backendPort(cp: CoderControlPlane): number {
  const port = servicePort(cp);
  return tlsEnabled(cp) && port === 443 ? 80 : port;
}

/** `<cp>.<ns>.svc.cluster.local`, the in-cluster DNS name of the Service. */
export function serviceHost(cp: CoderControlPlane): string {
  const { name, namespace } = cp.metadata;
  if (!name || !namespace) throw new Error(`CoderControlPlane "${namespace ?? ''}/${name ?? ''}" has no name or namespace`);
  return `${name}.${namespace}.svc.cluster.local`;
}

/** status.url: `http://<host>:<service port>` (port always shown), or `https://<host>:443` with TLS. */
export function statusURL(cp: CoderControlPlane): string {
  return tlsEnabled(cp) ? `https://${serviceHost(cp)}:443` : `http://${serviceHost(cp)}:${servicePort(cp)}`;
}

/**
 * The URL the operator calls Coder on: always plain HTTP on the backend port, because built-in TLS
 * certificates are issued for external names and would not verify for *.svc.cluster.local.
 */
export function operatorApiURL(cp: CoderControlPlane): string {
  return `http://${serviceHost(cp)}:${backendPort(cp)}`;
}

/** spec.operatorAccess.generatedTokenSecretName, or `<cp>-operator-token` (hashed to fit 63 characters). */
export function operatorTokenSecretName(cp: CoderControlPlane): string {
  const configured = cp.spec?.operatorAccess?.generatedTokenSecretName?.trim();
  if (configured) return configured;
  const name = cp.metadata.name!;
  const plain = `${name}${operatorTokenSecretSuffix}`;
  return plain.length <= 63 ? plain : `${name.slice(0, 39)}-${fnv32a(name)}${operatorTokenSecretSuffix}`;
}
