// Names, labels, ports, URLs and the owner reference that the CoderControlPlane child builders share.
import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';

export const controlPlaneApiVersion = 'coder.com/v1alpha1';
export const controlPlaneKind = 'CoderControlPlane';
export const defaultImage = 'ghcr.io/coder/coder:latest';
export const defaultServicePort = 80;
export const coderHttpPort = 8080;
export const coderHttpsPort = 8443;
/** The longest name of a Role or RoleBinding (a DNS subdomain). */
export const maxObjectNameLength = 253;
/** The longest pod volume name (a DNS label). */
export const maxVolumeNameLength = 63;

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
  return {
    'app.kubernetes.io/name': 'coder-control-plane',
    'app.kubernetes.io/instance': nameOf(cp),
    'app.kubernetes.io/managed-by': 'coder-k8s',
  };
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`, as 8 lower-case hex digits. */
export function fnv32a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * `prefix + suffix`, or, when that is longer than `max`, the prefix cut so that the whole fits, with
 * `-` and `.` trimmed from the ends of the cut prefix (a name may not end in them) and `fallback`
 * in place of a prefix that is left empty.
 */
export function fitName(prefix: string, suffix: string, fallback: string, max = maxObjectNameLength): string {
  if (prefix.length + suffix.length <= max) return prefix + suffix;
  const cut = prefix.slice(0, Math.max(0, max - suffix.length)).replace(/^[-.]+|[-.]+$/g, '');
  return (cut || fallback) + suffix;
}

/** The ServiceAccount the pods run as: spec.serviceAccount.name, or the control plane name when that is unset or blank. */
export function serviceAccountName(cp: CoderControlPlane): string {
  return cp.spec?.serviceAccount?.name?.trim() || nameOf(cp);
}

/**
 * The hash that makes workspace RBAC names unique per control plane: a shared workspace namespace
 * may hold the Roles of several control planes that use the same ServiceAccount name.
 */
export function workspaceScopeHash(cp: CoderControlPlane): string {
  return fnv32a(`${namespaceOf(cp)}\0${nameOf(cp)}`);
}

/** `<sa>-<hash>-workspace-perms`; the same in every target namespace. */
export function workspaceRoleName(cp: CoderControlPlane): string {
  return fitName(serviceAccountName(cp), `-${workspaceScopeHash(cp)}-workspace-perms`, 'workspace');
}

/** `<sa>-<hash>`; the same in every target namespace. */
export function workspaceRoleBindingName(cp: CoderControlPlane): string {
  return fitName(serviceAccountName(cp), `-${workspaceScopeHash(cp)}`, 'workspace');
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
  return `${nameOf(cp)}.${namespaceOf(cp)}.svc.cluster.local`;
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

/** The default CODER_ACCESS_URL: the Service URL with the scheme's default port left out. */
export function defaultAccessURL(cp: CoderControlPlane): string {
  if (tlsEnabled(cp)) return `https://${serviceHost(cp)}`;
  const port = servicePort(cp);
  return port === 80 ? `http://${serviceHost(cp)}` : `http://${serviceHost(cp)}:${port}`;
}

/** The controller owner reference that makes a child go with its control plane (Kubernetes GC). */
export function controllerOwnerReference(cp: CoderControlPlane): V1OwnerReference {
  const uid = cp.metadata.uid;
  if (!uid) throw new Error(`CoderControlPlane "${namespaceOf(cp)}/${nameOf(cp)}" has no metadata.uid`);
  return { apiVersion: controlPlaneApiVersion, kind: controlPlaneKind, name: nameOf(cp), uid, controller: true, blockOwnerDeletion: true };
}

/** The metadata every namespaced child in the control plane's namespace starts from. */
export function ownedMetadata(cp: CoderControlPlane, name = nameOf(cp)): V1ObjectMeta {
  return { name, namespace: namespaceOf(cp), labels: controlPlaneLabels(cp), ownerReferences: [controllerOwnerReference(cp)] };
}

/** A string map without undefined values (the generated types allow them), or undefined when empty. */
export function definedEntries(map: { [k: string]: string | undefined } | undefined): Record<string, string> | undefined {
  if (!map) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map)) if (value !== undefined) out[key] = value;
  return Object.keys(out).length > 0 ? out : undefined;
}
