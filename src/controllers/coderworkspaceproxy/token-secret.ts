// The generated proxy token Secret as the reconcile finds it: one the operator created for this proxy (with
// its credential marks and a controller owner reference: desired/token-secret.ts) is used; an existing Secret
// of that name that the operator did not create is read or written only when it is marked as a credential for
// this proxy (shared/credential-secret.ts).
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { credentialConsent, type CredentialConsent } from '../shared/credential-secret.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { secretValue } from '../../runtime/secret-value.ts';
import type { ProxyContext } from './context.ts';
import { proxyTokenKey, tokenSecretName } from './desired/names.ts';

/** The token Secret as the reconcile finds it: absent, created by the operator for this proxy, or someone else's (with or without consent). */
export type TokenSecretState =
  | { kind: 'absent' }
  | { kind: 'owned'; secret: V1Secret; token?: string }
  | { kind: 'adopted'; secret: V1Secret; token?: string }
  | { kind: 'refused'; consent: Extract<CredentialConsent, { consented: false }> };

export function tokenSecretState(proxy: CoderWorkspaceProxy, secret: V1Secret | undefined): TokenSecretState {
  if (!secret) return { kind: 'absent' };
  const token = () => secretValue(secret, proxyTokenKey)?.trim() || undefined;
  if (isControllerOwnedBy(secret, proxy)) return { kind: 'owned', secret, token: token() };
  const consent = credentialConsent(proxy, { name: tokenSecretName(proxy), key: proxyTokenKey }, secret);
  if (!consent.consented) return { kind: 'refused', consent };
  return { kind: 'adopted', secret, token: token() };
}

/**
 * The generated token Secret. The cache may not have seen the one created a moment ago: an absent one is
 * looked up live, or the next reconcile would issue a new token and fail to create the Secret again.
 */
export async function readTokenSecret(ctx: ProxyContext, proxy: CoderWorkspaceProxy): Promise<V1Secret | undefined> {
  const name = tokenSecretName(proxy);
  return (
    ctx.caches.secrets.get(proxy.metadata.namespace, name) ??
    (await ctx.writer.get<V1Secret>(builtinResources.secret, proxy.metadata.namespace, name))
  );
}
