// The credential Secret rule (design §5) for every Secret a provisioner reads or hands to its pods that it
// did not create: the key Secret named by spec.key.secretName when it already exists, and each extraEnv
// secretKeyRef. Pure: decides CredentialSecretReady and which Secrets must not reach a pod.
import type { V1Secret } from '@kubernetes/client-node';
import { CoderProvisionerConditions, type CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { credentialConsent, resolveCredentialSecret } from '../shared/credential-secret.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { secretValue } from '../../runtime/secret-value.ts';
import { keySecretRef } from './desired/names.ts';

const { CredentialSecretReady } = CoderProvisionerConditions;

/** What the key Secret holds for this provisioner. */
export type KeySecretState =
  /** Absent: the operator creates it, marked and controlled by this provisioner. */
  | { kind: 'absent' }
  /** Created by the operator for this provisioner, or a user's Secret with both marks; `key` is its value (trimmed, may be empty). */
  | { kind: 'usable'; created: boolean; key: string };

export interface CredentialCheck {
  condition: ConditionInput;
  /** The key Secret, when it may be used. */
  keySecret?: KeySecretState;
  /** Secrets that must not reach a pod (empty when the condition is True). */
  refused: Set<string>;
}

/**
 * The key Secret first, then the extraEnv references in order; the condition reports the first refusal
 * and counts the others. `secretOf` reads the cache (or the live object) by name.
 */
export function checkCredentialSecrets(p: CoderProvisioner, secretOf: (name: string) => V1Secret | undefined): CredentialCheck {
  const ref = keySecretRef(p);
  const problems: { reason: string; message: string; secret: string }[] = [];
  let keySecret: KeySecretState | undefined;
  const existing = secretOf(ref.name);
  if (!existing) keySecret = { kind: 'absent' };
  else {
    const consent = credentialConsent(p, ref, existing);
    if (consent.consented) {
      keySecret = { kind: 'usable', created: isControllerOwnedBy(existing, p), key: secretValue(existing, ref.key)?.trim() ?? '' };
    } else problems.push({ ...consent, secret: ref.name });
  }
  (p.spec?.extraEnv ?? []).forEach((env) => {
    const envRef = env.valueFrom?.secretKeyRef;
    if (!envRef?.name) return;
    const result = resolveCredentialSecret(p, { name: envRef.name, key: envRef.key }, secretOf(envRef.name));
    if (!result.ready)
      problems.push({ reason: result.reason, message: `spec.extraEnv ${env.name}: ${result.message}`, secret: envRef.name });
  });
  const refused = new Set(problems.map((problem) => problem.secret));
  const first = problems[0];
  if (!first) {
    return {
      condition: {
        type: CredentialSecretReady.type,
        status: 'True',
        reason: CredentialSecretReady.reasons.CredentialAccepted,
        message: `The key Secret "${ref.name}" and every Secret spec.extraEnv references may be used by this provisioner.`,
      },
      keySecret,
      refused,
    };
  }
  const more = problems.length > 1 ? ` ${problems.length - 1} more Secret reference(s) are refused too.` : '';
  return {
    condition: {
      type: CredentialSecretReady.type,
      status: 'False',
      reason: first.reason,
      message: `${first.message} Nothing is read from or written to it, and no pod receives it.${more}`,
    },
    keySecret,
    refused,
  };
}
