// The desired generated proxy token Secret: marked as a credential for this proxy only, controlled by it
// (it goes with the proxy), and holding the token Coder issued.
import type { V1Secret } from '@kubernetes/client-node';
import { coderWorkspaceProxyResource } from '../../../../generated/clients/coderworkspaceproxy.ts';
import type { CoderWorkspaceProxy } from '../../../../generated/types/coderworkspaceproxy.ts';
import { credentialMarks } from '../../shared/credential-secret.ts';
import { ownedMetadata, proxyTokenKey, tokenSecretName } from './names.ts';

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
