// The credential Secret rule for every Secret a provisioner reads or hands to its pods that it
// did not create: the key Secret named by spec.key.secretName when it already exists, and each extraEnv
// secretKeyRef. checkCredentialSecrets decides (pure) CredentialSecretReady and which Secrets must not reach a
// pod; the step stops the reconcile on a refusal, before any key call, and removes a Deployment whose pods
// still receive a refused Secret.
import type { V1Secret } from '@kubernetes/client-node';
import { CoderProvisionerConditions, type CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { secretValue } from '../../runtime/secret-value.ts';
import {
  credentialConsent,
  credentialWriteConsent,
  resolveCredentialSecret,
  type CredentialSecretReason,
  type CredentialWriteReason,
} from '../shared/credential-secret.ts';
import { removeDeploymentReferencing } from '../shared/workload/withdrawn-secret.ts';
import type { ProvisionerContext } from './context.ts';
import { keySecretRef, namespaceOf, workloadName } from './desired/names.ts';
import { keyCallNeeded } from './key-step.ts';
import type { ProvisionerOutcome } from './status.ts';

const { CredentialSecretReady } = CoderProvisionerConditions;

/** What the key Secret holds for this provisioner. */
export type KeySecretState =
  /** Absent: the operator creates it, marked and controlled by this provisioner. */
  | { kind: 'absent' }
  /** Created by the operator for this provisioner, or a user's Secret with both marks; `key` is its value (trimmed, may be empty). */
  | { kind: 'usable'; created: boolean; key: string };

export interface CredentialCheck {
  condition: ConditionOf<typeof CredentialSecretReady>;
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
  // `readable`: pods may still receive the Secret; only writing it is refused.
  const problems: { reason: CredentialSecretReason | CredentialWriteReason; message: string; secret: string; readable?: boolean }[] = [];
  let keySecret: KeySecretState | undefined;
  const existing = secretOf(ref.name);
  if (!existing) keySecret = { kind: 'absent' };
  else {
    const consent = credentialConsent(p, ref, existing);
    const created = isControllerOwnedBy(existing, p);
    const key = secretValue(existing, ref.key)?.trim() ?? '';
    // A new key is written into the Secret; a key this object wrote before the written-by annotation existed
    // is the one its status records with this Secret.
    const write =
      consent.consented && !created && keyCallNeeded(p, p.spec?.controlPlaneRef?.name?.trim() ?? '', key)
        ? credentialWriteConsent(p, ref, existing, recordsKeySecret(p, ref))
        : consent;
    if (!consent.consented) problems.push({ ...consent, secret: ref.name });
    else if (!write.consented) problems.push({ ...write, secret: ref.name, readable: true });
    else keySecret = { kind: 'usable', created, key };
  }
  (p.spec?.extraEnv ?? []).forEach((env) => {
    const envRef = env.valueFrom?.secretKeyRef;
    if (!envRef?.name) return;
    const result = resolveCredentialSecret(p, { name: envRef.name, key: envRef.key }, secretOf(envRef.name));
    if (!result.ready)
      problems.push({ reason: result.reason, message: `spec.extraEnv ${env.name}: ${result.message}`, secret: envRef.name });
  });
  const refused = new Set(problems.filter((problem) => !problem.readable).map((problem) => problem.secret));
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
      message: `${first.message}${first.readable ? '' : ' Nothing is read from or written to it, and no pod receives it.'}${more}`,
    },
    keySecret,
    refused,
  };
}

/** Whether the status records a key this provisioner keeps in that Secret. */
function recordsKeySecret(p: CoderProvisioner, ref: { name: string; key: string }): boolean {
  const recorded = p.status?.secretRef;
  return Boolean(p.status?.provisionerKeyID) && recorded?.name === ref.name && recorded.key === ref.key;
}

/** CredentialSecretReady; while it is True, what the key Secret holds and the object as read (to apply over). */
export type CredentialOutcome = ProvisionerOutcome &
  ({ stop: true } | { stop?: undefined; keySecret: KeySecretState; liveKeySecret: V1Secret | undefined });

export async function credentialSecretsStep(ctx: ProvisionerContext, p: CoderProvisioner): Promise<CredentialOutcome> {
  const ns = namespaceOf(p);
  const ref = keySecretRef(p);
  // An absent key Secret is created: look live first, in case the cache has not seen one made a moment ago.
  const liveKeySecret = ctx.caches.secrets.get(ns, ref.name) ?? (await ctx.writer.get<V1Secret>(builtinResources.secret, ns, ref.name));
  const credentials = checkCredentialSecrets(p, (name) => (name === ref.name ? liveKeySecret : ctx.caches.secrets.get(ns, name)));
  const conditions = { [CredentialSecretReady.type]: credentials.condition };
  if (credentials.condition.status === 'False') {
    const deployment = ctx.caches.deployments.get(ns, workloadName(p));
    await removeDeploymentReferencing(ctx, p, deployment, credentials.refused, { pods: 'provisioner', action: 'CheckCredentialSecrets' });
    return { conditions, stop: true };
  }
  return { conditions, keySecret: credentials.keySecret!, liveKeySecret };
}
