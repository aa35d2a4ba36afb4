// CredentialSecretReady: every Secret this proxy would read or hand to its pods that the operator did not
// create for it (the session token Secret, the bootstrap credentials, each spec.extraEnv secretKeyRef and
// an existing generated token Secret) is used only with the owner's consent. Pure: decides
// the condition and which Secrets must not reach a pod.
import type { V1Secret } from '@kubernetes/client-node';
import { CoderWorkspaceProxyConditions, type CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { resolveCredentialSecret, type CredentialSecretResult } from '../shared/credential-secret.ts';
import { tokenSecretName } from './desired/names.ts';
import type { TokenSecretState } from './token-secret.ts';

const { type, reasons } = CoderWorkspaceProxyConditions.CredentialSecretReady;
/** The key of a token Secret reference that names none. */
export const defaultTokenKey = 'token';

export interface CredentialCheck {
  condition: ConditionOf<typeof CoderWorkspaceProxyConditions.CredentialSecretReady>;
  /** The session token of spec.bootstrap.credentialsSecretRef, when it is used and may be read. */
  bootstrapToken?: string;
  /** Secrets that must not reach a pod (empty when the condition is True). */
  refused: Set<string>;
}

type Refusal = Extract<CredentialSecretResult, { ready: false }> & { secret: string };

/** The Secrets of spec.extraEnv secretKeyRefs: a missing optional Secret or key is no refusal (nothing flows), an unmarked one is. */
function extraEnvRefusals(proxy: CoderWorkspaceProxy, secretNamed: (name: string) => V1Secret | undefined): Refusal[] {
  const refusals: Refusal[] = [];
  for (const env of proxy.spec?.extraEnv ?? []) {
    const ref = env.valueFrom?.secretKeyRef;
    if (!ref?.name) continue;
    const secret = secretNamed(ref.name);
    const result = resolveCredentialSecret(proxy, { name: ref.name, key: ref.key }, secret);
    if (result.ready) continue;
    const optional = ref.optional === true && (result.reason === reasons.SecretNotFound || result.reason === reasons.KeyNotFound);
    if (!optional) refusals.push({ ...result, secret: ref.name });
  }
  return refusals;
}

export function checkCredentials(
  proxy: CoderWorkspaceProxy,
  tokenSecret: TokenSecretState,
  secretNamed: (name: string) => V1Secret | undefined,
): CredentialCheck {
  const spec = proxy.spec ?? {};
  const refusals: Refusal[] = [];
  let bootstrapToken: string | undefined;
  const usesSessionTokenRef = !spec.controlPlaneRef && !spec.bootstrap && spec.proxySessionTokenSecretRef?.name;
  if (usesSessionTokenRef) {
    const ref = spec.proxySessionTokenSecretRef!;
    const result = resolveCredentialSecret(proxy, { name: ref.name, key: ref.key || defaultTokenKey }, secretNamed(ref.name));
    if (!result.ready) refusals.push({ ...result, secret: ref.name });
  }
  const credentials = !spec.controlPlaneRef ? spec.bootstrap?.credentialsSecretRef : undefined;
  if (credentials?.name) {
    const result = resolveCredentialSecret(
      proxy,
      { name: credentials.name, key: credentials.key || defaultTokenKey },
      secretNamed(credentials.name),
    );
    if (result.ready) bootstrapToken = result.value;
    else refusals.push({ ...result, secret: credentials.name });
  }
  if (tokenSecret.kind === 'refused')
    refusals.push({
      ready: false,
      reason: tokenSecret.consent.reason,
      message: tokenSecret.consent.message,
      secret: tokenSecretName(proxy),
    });
  refusals.push(...extraEnvRefusals(proxy, secretNamed));

  const refused = new Set(refusals.map((refusal) => refusal.secret));
  const first = refusals[0];
  if (!first) {
    return {
      condition: {
        type,
        status: 'True',
        reason: reasons.CredentialAccepted,
        message: 'Every Secret of this proxy was created by the operator for it, or is marked as a credential for it.',
      },
      ...(bootstrapToken !== undefined ? { bootstrapToken } : {}),
      refused,
    };
  }
  const more =
    refusals.length > 1 ? ` (${refusals.length - 1} more Secret reference${refusals.length > 2 ? 's are' : ' is'} refused too.)` : '';
  return {
    condition: {
      type,
      status: 'False',
      reason: first.reason,
      message: `${first.message} Nothing is read from or written to it, and no pod receives it.${more}`,
    },
    refused,
  };
}
