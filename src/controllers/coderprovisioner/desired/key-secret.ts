// The key Secret. One the operator creates is marked as a credential for this provisioner and controlled by
// it; one the user made and marked (consent) only gets the key written into it, with the written-by
// annotation that lets this provisioner replace it later: no owner reference, so it is not deleted with the
// provisioner, and no label of ours.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderProvisioner } from '../../../../generated/types/coderprovisioner.ts';
import { credentialMarks, credentialWrittenBy } from '../../shared/credential-secret.ts';
import { ownedMetadata } from './names.ts';

type KeyRef = { name: string; key: string };

const keyData = (ref: KeyRef, key: string) => ({ [ref.key]: Buffer.from(key, 'utf8').toString('base64') });

export function buildKeySecret(p: CoderProvisioner, ref: KeyRef, key: string): V1Secret {
  const metadata = ownedMetadata(p, ref.name);
  const marks = credentialMarks(p);
  metadata.labels = { ...metadata.labels, ...marks.labels };
  metadata.annotations = marks.annotations;
  return { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', data: keyData(ref, key) };
}

/** The merge patch that writes the key into a user's marked Secret, as `secret` was read. */
export function keyWriteToUserSecret(p: CoderProvisioner, ref: KeyRef, key: string, secret: V1Secret) {
  return { metadata: { annotations: credentialWrittenBy(p, ref.key, secret) }, data: keyData(ref, key) };
}
