// Names, labels, defaults and the owner reference that the CoderProvisioner child builders share:
// fitted to Kubernetes' and Coder's length limits with an FNV suffix.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { coderProvisionerResource } from '../../../../generated/clients/coderprovisioner.ts';
import type { CoderProvisioner } from '../../../../generated/types/coderprovisioner.ts';
import { provisionerKeySecretSuffix } from '../../shared/claimed-secret-names.ts';
import { fnv32a } from '../../../runtime/object-names.ts';
import { childMetadata, workloadLabels } from '../../shared/workload/envelope.ts';

export const defaultImage = 'ghcr.io/coder/coder:latest';
export const defaultOrganization = 'default';
export const defaultSecretKey = 'key';
/** Coder refuses a provisioner key name longer than this (the API's CreateProvisionerKeyRequest). */
export const maxKeyNameLength = 64;
const maxLabelLength = 63;
const maxSecretNameLength = 253;

export function nameOf(p: CoderProvisioner): string {
  const name = p.metadata.name;
  if (!name) throw new Error('CoderProvisioner has no metadata.name');
  return name;
}

export function namespaceOf(p: CoderProvisioner): string {
  const namespace = p.metadata.namespace;
  if (!namespace) throw new Error(`CoderProvisioner "${p.metadata.name ?? ''}" has no metadata.namespace`);
  return namespace;
}

/**
 * `prefix + name + suffix`, or, when longer than `max`, a cut of the name followed by `-` and the
 * FNV-1a hash of the whole name, so that two long names that share a start stay distinct.
 */
export function hashedName(prefix: string, name: string, suffix: string, max: number): string {
  const plain = `${prefix}${name}${suffix}`;
  if (plain.length <= max) return plain;
  const hash = fnv32a(name);
  const room = max - prefix.length - suffix.length - hash.length - 1;
  const cut = name.slice(0, Math.max(0, room)).replace(/[-.]+$/, '');
  return `${prefix}${cut ? `${cut}-` : ''}${hash}${suffix}`;
}

/** The label value of the object's name (63 characters at most). */
function instanceLabel(p: CoderProvisioner): string {
  return hashedName('', nameOf(p), '', maxLabelLength);
}

/** The three standard labels of every child, the pod template and the Deployment selector. */
export function provisionerLabels(p: CoderProvisioner): Record<string, string> {
  return workloadLabels('coder-provisioner', instanceLabel(p));
}

/** `provisioner-<name>`: the Deployment, Role and RoleBinding. */
export function workloadName(p: CoderProvisioner): string {
  return hashedName('provisioner-', nameOf(p), '', maxLabelLength);
}

/** `<name>-provisioner`: the ServiceAccount the daemons run as. */
export function serviceAccountName(p: CoderProvisioner): string {
  return hashedName('', nameOf(p), '-provisioner', maxLabelLength);
}

/** spec.organizationName, or `default`. */
export function organizationName(p: CoderProvisioner): string {
  return p.spec?.organizationName?.trim() || defaultOrganization;
}

/** spec.key.name, or the object's name fitted to Coder's limit. */
export function keyName(p: CoderProvisioner): string {
  return p.spec?.key?.name?.trim() || hashedName('', nameOf(p), '', maxKeyNameLength);
}

/** The Secret and key that hold the provisioner key: spec.key.secretName/secretKey or `<name>-provisioner-key`/`key`. */
export function keySecretRef(p: CoderProvisioner): { name: string; key: string } {
  return {
    name: p.spec?.key?.secretName?.trim() || hashedName('', nameOf(p), provisionerKeySecretSuffix, maxSecretNameLength),
    key: p.spec?.key?.secretKey?.trim() || defaultSecretKey,
  };
}

/** The tags as Coder receives them (no undefined values), in key order. */
export function tagsOf(p: CoderProvisioner): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const key of Object.keys(p.spec?.tags ?? {}).sort()) {
    const value = p.spec!.tags![key];
    if (value !== undefined) tags[key] = value;
  }
  return tags;
}

/** 8 hex digits of FNV-1a over the sorted tags, each key and value followed by a zero byte (the Go original's tagsHash). */
export function tagsHash(tags: Record<string, string>): string {
  return fnv32a(
    Object.keys(tags)
      .sort()
      .map((k) => `${k}\0${tags[k]}\0`)
      .join(''),
  );
}

/** The metadata every child starts from: name, namespace, standard labels and the controller owner reference. */
export function ownedMetadata(p: CoderProvisioner, name: string): V1ObjectMeta {
  return childMetadata(coderProvisionerResource, p, { name, namespace: namespaceOf(p), labels: provisionerLabels(p) });
}
