// Every Secret a spec names, through the credential Secret rule (credential-secret.ts), as one
// CredentialSecretReady condition: True when every value may be read, else the first refusal in spec order.
// Values are handed back only when all are ready, so nothing partial is ever sent to Coder.
import type { V1Secret } from '@kubernetes/client-node';
import type { CredentialSecretReadyCondition } from '../../../../generated/types/conditions.ts';
import type { ConditionOf } from '../../../runtime/conditions.ts';
import {
  credentialSecretReadyType,
  credentialSecretReasons,
  resolveCredentialSecret,
  type CredentialConsumer,
  type CredentialSecretRef,
} from '../credential-secret.ts';

/** A Secret a spec names, under the field that names it (for example `apiKeys[0]`, `bedrock.accessKeyID`). */
export interface NamedCredentialRef {
  field: string;
  ref: CredentialSecretRef;
}

/** CredentialSecretReady of the shared set: every kind that resolves Secrets this way declares all its reasons. */
type CredentialSecretReady = ConditionOf<typeof CredentialSecretReadyCondition>;

export type CredentialInputs =
  | { ready: true; values: Map<string, string>; condition: CredentialSecretReady | undefined }
  | { ready: false; condition: CredentialSecretReady };

/**
 * The values by field, with CredentialSecretReady (undefined, so removed, when the spec names no Secret).
 * `secretOf` reads a Secret of the consumer's namespace from the cache.
 */
export function resolveCredentialInputs(
  consumer: CredentialConsumer,
  refs: readonly NamedCredentialRef[],
  secretOf: (name: string) => V1Secret | undefined,
): CredentialInputs {
  const values = new Map<string, string>();
  for (const { field, ref } of refs) {
    const result = resolveCredentialSecret(consumer, ref, secretOf(ref.name));
    if (!result.ready) {
      return {
        ready: false,
        condition: { type: credentialSecretReadyType, status: 'False', reason: result.reason, message: `spec.${field}: ${result.message}` },
      };
    }
    values.set(field, result.value);
  }
  if (refs.length === 0) return { ready: true, values, condition: undefined };
  const names = [...new Set(refs.map((r) => `"${r.ref.name}"`))].join(', ');
  return {
    ready: true,
    values,
    condition: {
      type: credentialSecretReadyType,
      status: 'True',
      reason: credentialSecretReasons.CredentialAccepted,
      message: `Every Secret named in spec (${names}) is marked as a credential for this object and holds a value.`,
    },
  };
}
