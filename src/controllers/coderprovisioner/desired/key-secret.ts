// The desired key Secret. One the operator creates is marked as a credential for this provisioner and
// controlled by it; one the user made and marked (consent) only gets the key written into it: no owner
// reference, so it is not deleted with the provisioner, and no label of ours.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderProvisioner } from '../../../../generated/types/coderprovisioner.ts';
import { credentialMarks } from '../../shared/credential-secret.ts';
import { namespaceOf, ownedMetadata } from './names.ts';

export function buildKeySecret(p: CoderProvisioner, ref: { name: string; key: string }, key: string, created: boolean): V1Secret {
  const data = { [ref.key]: Buffer.from(key, 'utf8').toString('base64') };
  if (!created) return { apiVersion: 'v1', kind: 'Secret', metadata: { name: ref.name, namespace: namespaceOf(p) }, data };
  const metadata = ownedMetadata(p, ref.name);
  const marks = credentialMarks(p);
  metadata.labels = { ...metadata.labels, ...marks.labels };
  metadata.annotations = marks.annotations;
  return { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', data };
}
