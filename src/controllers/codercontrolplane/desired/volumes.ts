// The pod volumes and container mounts for built-in TLS (spec.tls) and extra CA certificates (spec.certs).
import type { V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import { secretVolumeName } from './names.ts';
import type { FromField } from '../../shared/workload/pod-spec.ts';
import { SpecError } from '../../shared/spec-check.ts';

const tlsCertDirectory = '/etc/ssl/certs/coder';
const caCertDirectory = '/etc/ssl/certs';

/** A volume or mount together with the spec field it comes from, for error messages. */
export interface CertVolumes {
  volumes: FromField<V1Volume>[];
  volumeMounts: FromField<V1VolumeMount>[];
}

/** spec.tls.secretNames, trimmed, each once, in order. An empty entry is a SpecError. */
function tlsSecretNames(cp: CoderControlPlane): { name: string; field: string }[] {
  const names: { name: string; field: string }[] = [];
  (cp.spec?.tls?.secretNames ?? []).forEach((entry, i) => {
    const field = `spec.tls.secretNames[${i}]`;
    const name = entry.trim();
    if (!name) throw new SpecError(field, 'the TLS secret name is empty; remove the entry or name a kubernetes.io/tls Secret');
    if (!names.some((n) => n.name === name)) names.push({ name, field });
  });
  return names;
}

/** Where Coder finds the certificate (or key) of each TLS Secret, comma-joined for CODER_TLS_CERT_FILE / CODER_TLS_KEY_FILE. */
export function tlsFileList(cp: CoderControlPlane, file: 'tls.crt' | 'tls.key'): string {
  return tlsSecretNames(cp)
    .map(({ name }) => `${tlsCertDirectory}/${name}/${file}`)
    .join(',');
}

export interface CaCertificate {
  secretName: string;
  key: string;
  field: string;
  volumeName: string;
  /** The file under /etc/ssl/certs, always ending in .crt. */
  fileName: string;
}

/**
 * The CA certificates of spec.certs.secrets: trimmed, repeated name+key pairs skipped. The file is
 * `<name>.crt`, or `<name>-<key>.crt` when the same Secret is listed with several keys; `.crt` is
 * not doubled, and a file name already taken gets `-2`, `-3`, ... before `.crt`.
 */
function caCertificates(cp: CoderControlPlane): CaCertificate[] {
  const items: { secretName: string; key: string; field: string }[] = [];
  (cp.spec?.certs?.secrets ?? []).forEach((entry, i) => {
    const field = `spec.certs.secrets[${i}]`;
    const secretName = (entry.name ?? '').trim();
    const key = (entry.key ?? '').trim();
    if (!secretName) throw new SpecError(`${field}.name`, 'the CA certificate Secret name is empty; name a Secret in this namespace');
    if (!key)
      throw new SpecError(
        `${field}.key`,
        `the key of CA certificate Secret "${secretName}" is empty; name the key that holds the PEM certificate`,
      );
    if (!items.some((it) => it.secretName === secretName && it.key === key)) items.push({ secretName, key, field });
  });
  const keysPerSecret = new Map<string, number>();
  for (const { secretName } of items) keysPerSecret.set(secretName, (keysPerSecret.get(secretName) ?? 0) + 1);
  const taken = new Set<string>();
  return items.map(({ secretName, key, field }) => {
    const base = (keysPerSecret.get(secretName) ?? 0) > 1 ? `${secretName}-${key}` : secretName;
    const stem = base.endsWith('.crt') ? base.slice(0, -'.crt'.length) : base;
    let fileName = `${stem}.crt`;
    for (let n = 2; taken.has(fileName); n++) fileName = `${stem}-${n}.crt`;
    taken.add(fileName);
    return { secretName, key, field, volumeName: secretVolumeName('ca-cert', secretName), fileName };
  });
}

/**
 * The operator's volumes and mounts, in order: one read-only volume per TLS Secret mounted at
 * /etc/ssl/certs/coder/<secret>; then one volume per CA Secret, each certificate mounted read-only
 * by subPath at /etc/ssl/certs/<file>.
 */
export function certVolumes(cp: CoderControlPlane): CertVolumes {
  const volumes: FromField<V1Volume>[] = [];
  const volumeMounts: FromField<V1VolumeMount>[] = [];
  for (const { name, field } of tlsSecretNames(cp)) {
    const volumeName = secretVolumeName('tls', name);
    volumes.push({ field, item: { name: volumeName, secret: { secretName: name } } });
    volumeMounts.push({ field, item: { name: volumeName, mountPath: `${tlsCertDirectory}/${name}`, readOnly: true } });
  }
  for (const ca of caCertificates(cp)) {
    if (!volumes.some((v) => v.item.name === ca.volumeName && v.item.secret?.secretName === ca.secretName)) {
      volumes.push({ field: ca.field, item: { name: ca.volumeName, secret: { secretName: ca.secretName } } });
    }
    volumeMounts.push({
      field: ca.field,
      item: { name: ca.volumeName, mountPath: `${caCertDirectory}/${ca.fileName}`, subPath: ca.key, readOnly: true },
    });
  }
  return { volumes, volumeMounts };
}
