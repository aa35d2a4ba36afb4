// Names, labels, ports, URLs and the owner reference that the CoderControlPlane child builders share.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import { serviceHost, servicePort, tlsEnabled } from '../../../controlplane/endpoints.ts';
import { fnv32a } from '../../../runtime/object-names.ts';
import { childMetadata, workloadLabels } from '../../shared/workload/envelope.ts';

export const defaultImage = 'ghcr.io/coder/coder:latest';
export const coderHttpPort = 8080;
export const coderHttpsPort = 8443;
/** The longest pod volume name (a DNS label). */
const maxVolumeNameLength = 63;

/** The name of the control plane; every child that is not RBAC carries it. */
export function nameOf(cp: CoderControlPlane): string {
  const name = cp.metadata.name;
  if (!name) throw new Error('CoderControlPlane has no metadata.name');
  return name;
}

export function namespaceOf(cp: CoderControlPlane): string {
  const namespace = cp.metadata.namespace;
  if (!namespace) throw new Error(`CoderControlPlane "${cp.metadata.name ?? ''}" has no metadata.namespace`);
  return namespace;
}

/** The three standard labels of every child (and the Deployment and Service selectors). */
export function controlPlaneLabels(cp: CoderControlPlane): Record<string, string> {
  return workloadLabels('coder-control-plane', nameOf(cp));
}

/** The ServiceAccount the pods run as: spec.serviceAccount.name, or the control plane name when that is unset or blank. */
export function serviceAccountName(cp: CoderControlPlane): string {
  return cp.spec?.serviceAccount?.name?.trim() || nameOf(cp);
}

/**
 * A pod volume name for a Secret: `<prefix>-<name>` when the lower-cased Secret name is already a
 * clean DNS label part and the result fits in 63 characters; otherwise the sanitized name, cut to
 * fit, followed by a hash of the original so that names that sanitize alike stay distinct.
 */
export function secretVolumeName(prefix: string, secretName: string): string {
  const lower = secretName.toLowerCase();
  const sanitized = lower.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  const plain = `${prefix}-${sanitized}`;
  if (sanitized === lower && sanitized !== '' && plain.length <= maxVolumeNameLength) return plain;
  const hash = fnv32a(`${prefix}\0${secretName}`);
  const room = maxVolumeNameLength - prefix.length - hash.length - 2;
  const cut = sanitized.slice(0, Math.max(0, room)).replace(/-+$/, '');
  return cut ? `${prefix}-${cut}-${hash}` : `${prefix}-${hash}`;
}

/** The default CODER_ACCESS_URL: the Service URL with the scheme's default port left out. */
export function defaultAccessURL(cp: CoderControlPlane): string {
  if (tlsEnabled(cp)) return `https://${serviceHost(cp)}`;
  const port = servicePort(cp);
  return port === 80 ? `http://${serviceHost(cp)}` : `http://${serviceHost(cp)}:${port}`;
}

/** The metadata every namespaced child in the control plane's namespace starts from. */
export function ownedMetadata(cp: CoderControlPlane, name = nameOf(cp)): V1ObjectMeta {
  return childMetadata(coderControlPlaneResource, cp, { name, namespace: namespaceOf(cp), labels: controlPlaneLabels(cp) });
}
