// What the proxy pods are given: the Coder URL they serve (CODER_PRIMARY_ACCESS_URL) and the Secret and key
// that hold their session token, by registration mode (a proxy registered by hand names its own Secret).
import type { CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import { SpecError } from '../shared/spec-check.ts';
import type { RegistrationMode } from './coder-access.ts';
import { proxyTokenKey, tokenSecretName } from './desired/names.ts';
import type { TokenSecretState } from './token-secret.ts';

/** The Secret and key the pods read the token from, and whether it holds one the proxy may use. */
export interface ProxyToken {
  name: string;
  key: string;
  held: boolean;
}

/** CODER_PRIMARY_ACCESS_URL: spec.primaryAccessURL, else the control plane's status.url, else spec.bootstrap.coderURL. */
export function primaryAccessURL(
  proxy: CoderWorkspaceProxy,
  mode: RegistrationMode,
  controlPlaneURL: string | undefined,
): string | undefined {
  const configured = proxy.spec?.primaryAccessURL?.trim();
  if (configured) return configured;
  if (mode === 'controlPlane') return controlPlaneURL;
  if (mode === 'bootstrap') return proxy.spec?.bootstrap?.coderURL?.trim() || undefined;
  throw new SpecError(
    'spec.primaryAccessURL',
    'is required when neither spec.controlPlaneRef nor spec.bootstrap is set; set it to the access URL of Coder',
  );
}

/** `registered`: this reconcile found the proxy registered in Coder with its token in the token Secret. */
export function proxyToken(proxy: CoderWorkspaceProxy, mode: RegistrationMode, state: TokenSecretState, registered: boolean): ProxyToken {
  if (mode === 'manual') {
    const ref = proxy.spec?.proxySessionTokenSecretRef;
    if (!ref?.name?.trim()) {
      throw new SpecError(
        'spec.proxySessionTokenSecretRef',
        'is required when neither spec.controlPlaneRef nor spec.bootstrap is set; name the Secret with the token of `coder wsproxy create`',
      );
    }
    return { name: ref.name.trim(), key: ref.key || 'token', held: true };
  }
  // A Secret the operator did not create may hold anything (a person's token, another proxy's): its value is
  // this proxy's token only once registration found it so.
  const held = registered || (state.kind === 'owned' && state.token !== undefined);
  return { name: tokenSecretName(proxy), key: proxyTokenKey, held };
}
