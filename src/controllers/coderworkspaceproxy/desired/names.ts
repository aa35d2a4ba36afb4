// Names, labels and the owner reference that the CoderWorkspaceProxy child builders share.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { coderWorkspaceProxyResource } from '../../../../generated/clients/coderworkspaceproxy.ts';
import type { CoderWorkspaceProxy } from '../../../../generated/types/coderworkspaceproxy.ts';
import { fitName, fnv32a } from '../../../runtime/object-names.ts';
import { proxyTokenSecretSuffix } from '../../shared/claimed-secret-names.ts';
import { childMetadata, workloadLabels } from '../../shared/workload/envelope.ts';

export const defaultImage = 'ghcr.io/coder/coder:latest';
/** The proxy's HTTP listener in the pod (`--http-address=0.0.0.0:3001`). */
export const proxyHttpPort = 3001;
/** The key of the proxy token in the generated token Secret. */
export const proxyTokenKey = 'token';
const maxLabelLength = 63;

export function nameOf(proxy: CoderWorkspaceProxy): string {
  const name = proxy.metadata.name;
  if (!name) throw new Error('CoderWorkspaceProxy has no metadata.name');
  return name;
}

/** A name of at most 63 characters: the value itself, or a cut prefix and `-` + 8 hex digits of its FNV-1a hash. */
function fit63(value: string): string {
  return value.length <= maxLabelLength ? value : fitName(value, `-${fnv32a(value)}`, 'x', maxLabelLength);
}

/** `wsproxy-<name>`, so the proxy's Deployment and Service never collide with a control plane's of the same name. */
export function childName(proxy: CoderWorkspaceProxy): string {
  const name = nameOf(proxy);
  const plain = `wsproxy-${name}`;
  return plain.length <= maxLabelLength ? plain : fitName(`wsproxy-${name}`, `-${fnv32a(name)}`, 'wsproxy', maxLabelLength);
}

/** The three standard labels of every child, also the Deployment and Service selectors. */
export function proxyLabels(proxy: CoderWorkspaceProxy): Record<string, string> {
  return workloadLabels('coder-workspace-proxy', fit63(nameOf(proxy)));
}

/** spec.bootstrap.generatedTokenSecretName, or `<name>-proxy-token` (hashed to fit 253 characters). */
export function tokenSecretName(proxy: CoderWorkspaceProxy): string {
  const configured = proxy.spec?.bootstrap?.generatedTokenSecretName?.trim();
  if (configured) return configured;
  const name = nameOf(proxy);
  const plain = `${name}${proxyTokenSecretSuffix}`;
  return plain.length <= 253 ? plain : fitName(name, `-${fnv32a(name)}${proxyTokenSecretSuffix}`, 'wsproxy');
}

/** The name of the proxy in Coder: spec.bootstrap.proxyName, or the object's name. */
export function proxyNameInCoder(proxy: CoderWorkspaceProxy): string {
  return proxy.spec?.bootstrap?.proxyName?.trim() || nameOf(proxy);
}

/** The metadata every child starts from: its name, the labels and the controller owner reference. */
export function ownedMetadata(proxy: CoderWorkspaceProxy, name = childName(proxy)): V1ObjectMeta {
  return childMetadata(coderWorkspaceProxyResource, proxy, { name, namespace: proxy.metadata.namespace, labels: proxyLabels(proxy) });
}
