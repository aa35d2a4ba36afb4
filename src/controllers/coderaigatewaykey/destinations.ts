// The destination Secrets of a key: which may receive it (created by the operator for this object, or
// consenting through the credential marks), which hold the current key, and writing it. A Secret that does
// not consent is never written.
import type { V1Secret } from '@kubernetes/client-node';
import { coderAIGatewayKeyResource } from '../../../generated/clients/coderaigatewaykey.ts';
import { CoderAIGatewayKeyConditions as C, type CoderAIGatewayKey } from '../../../generated/types/coderaigatewaykey.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { builtinResources } from '../../runtime/resource.ts';
import type { Writer } from '../../runtime/writer.ts';
import { claimedNameProblem, secretNameClaim } from '../shared/claimed-secret-names.ts';
import { credentialMarks, credentialWriteConsent, credentialWrittenBy } from '../shared/credential-secret.ts';
import { controllerOwnerReference } from '../../runtime/object-names.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { secretHash } from '../shared/coder-object/secret-hash.ts';
import { secretValue } from '../../runtime/secret-value.ts';

export interface Destination {
  name: string;
  key: string;
  /** The Secret as cached; undefined when it does not exist yet. */
  secret: V1Secret | undefined;
  /** Created by the operator for this object (controller owner). */
  managed: boolean;
}

/** The key's data key in a destination: spec's, or `key`, which the coder-ai-gateway Helm chart reads. */
export const defaultDestinationKey = 'key';

export function destinationsOf(k: CoderAIGatewayKey, secretOf: (name: string) => V1Secret | undefined): Destination[] {
  return k.spec.destinations.map((d) => {
    const secret = secretOf(d.name);
    return { name: d.name, key: d.key || defaultDestinationKey, secret, managed: !secret || isControllerOwnedBy(secret, k) };
  });
}

/**
 * A destination under a name another kind's naming scheme claims (the schema refuses it too; an object
 * stored under an older CRD may still have one): the message names the field and the kind, and nothing is
 * written until the spec changes.
 */
export function claimedDestinationProblem(k: CoderAIGatewayKey): string | undefined {
  for (const [i, d] of k.spec.destinations.entries()) {
    const claim = secretNameClaim(d.name);
    if (claim) return claimedNameProblem(`spec.destinations[${i}].name`, d.name, claim);
  }
  return undefined;
}

/**
 * CredentialSecretReady: True when every destination may receive the key, else the first that may not. A
 * destination that holds a value this object did not write may not: writing there would replace a person's
 * or another object's credential. The key the status records is this object's, written before the
 * written-by annotation existed.
 */
export function destinationConsent(k: CoderAIGatewayKey, destinations: Destination[]): ConditionOf<typeof C.CredentialSecretReady> {
  for (const d of destinations) {
    if (!d.secret || d.managed) continue;
    const consent = credentialWriteConsent(k, { name: d.name, key: d.key }, d.secret, holdsKey(k, d, k.status?.secretHash));
    if (!consent.consented) {
      return {
        type: C.CredentialSecretReady.type,
        status: 'False',
        reason: consent.reason,
        message: `spec.destinations: ${consent.message}`,
      };
    }
  }
  return {
    type: C.CredentialSecretReady.type,
    status: 'True',
    reason: C.CredentialSecretReady.reasons.CredentialAccepted,
    message: 'Every destination Secret is created by the operator for this key, or is marked as a credential for it.',
  };
}

/** Whether the destination holds the key `hash` names (hashes compared; the value is never kept). */
export function holdsKey(k: CoderAIGatewayKey, d: Destination, hash: string | undefined): boolean {
  const value = secretValue(d.secret, d.key);
  return hash !== undefined && value !== undefined && secretHash(k.metadata.uid, value) === hash;
}

/** Writes `key` into the destination: creates a Secret owned by this object, or sets one data key of a consenting Secret. */
export async function writeKey(writer: Writer, k: CoderAIGatewayKey, d: Destination, key: string): Promise<void> {
  const data = { [d.key]: Buffer.from(key).toString('base64') };
  if (!d.secret) {
    const marks = credentialMarks(k);
    await writer.create<V1Secret>(builtinResources.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: d.name,
        namespace: k.metadata.namespace,
        labels: marks.labels,
        annotations: marks.annotations,
        ownerReferences: [controllerOwnerReference(coderAIGatewayKeyResource, k)],
      },
      type: 'Opaque',
      data,
    });
    return;
  }
  await writer.mergePatch(builtinResources.secret, d.secret, { metadata: { annotations: credentialWrittenBy(k, d.key, d.secret) }, data });
}
