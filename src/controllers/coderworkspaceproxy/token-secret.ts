// The generated proxy token Secret: created by the operator with the credential marks of this proxy and
// a controller owner reference; an existing Secret of that name that the operator did not create is read
// or written only when it is marked as a credential for this proxy (shared/credential-secret.ts).
import type { V1Secret } from '@kubernetes/client-node';
import { coderWorkspaceProxyResource } from '../../../generated/clients/coderworkspaceproxy.ts';
import type { CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import { credentialConsent, credentialMarks, type CredentialConsent } from '../shared/credential-secret.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { secretValue } from '../../runtime/secret-value.ts';
import { ownedMetadata, proxyTokenKey, tokenSecretName } from './names.ts';

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

/** The Secret the operator creates: the proxy's labels and credential marks, a controller owner reference, and the token. */
export function buildTokenSecret(proxy: CoderWorkspaceProxy, token: string): V1Secret {
  const marks = credentialMarks({ kind: coderWorkspaceProxyResource.kind, metadata: proxy.metadata });
  const metadata = ownedMetadata(proxy, tokenSecretName(proxy));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { ...metadata, labels: { ...metadata.labels, ...marks.labels }, annotations: marks.annotations },
    type: 'Opaque',
    data: { [proxyTokenKey]: Buffer.from(token).toString('base64') },
  };
}
