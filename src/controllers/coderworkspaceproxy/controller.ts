// CoderWorkspaceProxy controller wiring: the caches it reads, what it owns, and two indexes so that a change
// reaches the proxies it concerns at once: from a Secret to every proxy that names it (token, credentials,
// generated token, extraEnv secretKeyRefs), and from a control plane (and its operator token Secret) to the
// proxies that register through it.
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { coderWorkspaceProxyResource } from '../../../generated/clients/coderworkspaceproxy.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import { requestKey } from '../../runtime/controller.ts';
import { builtinResources } from '../../runtime/resource.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import { childDrift, deploymentDrift, ownWritesIgnored } from '../shared/event-filters.ts';
import { operatorTokenLabel } from '../../controlplane/operator-token-marks.ts';
import type { ProxyContext } from './context.ts';
import { deregistrationFinalizer } from './deregistration.ts';
import { tokenSecretName } from './names.ts';
import { reconcileWorkspaceProxy } from './reconcile.ts';

const controllerName = 'coderworkspaceproxy';
const secretRefIndex = 'secret-refs';
const controlPlaneIndex = 'control-plane';

/** namespace/name of every Secret a proxy reads, adopts or hands to its pods. */
export function referencedSecrets(proxy: CoderWorkspaceProxy): string[] {
  const spec = proxy.spec ?? {};
  const names = new Set<string>();
  if (spec.proxySessionTokenSecretRef?.name) names.add(spec.proxySessionTokenSecretRef.name.trim());
  if (spec.bootstrap?.credentialsSecretRef?.name) names.add(spec.bootstrap.credentialsSecretRef.name.trim());
  if (spec.bootstrap || spec.controlPlaneRef) names.add(tokenSecretName(proxy));
  for (const env of spec.extraEnv ?? []) if (env.valueFrom?.secretKeyRef?.name) names.add(env.valueFrom.secretKeyRef.name.trim());
  return [...names].map((name) => `${proxy.metadata.namespace}/${name}`);
}

/** namespace/name of the control plane a proxy registers through. */
function referencedControlPlane(proxy: CoderWorkspaceProxy): string[] {
  const name = proxy.spec?.controlPlaneRef?.name;
  return name ? [`${proxy.metadata.namespace}/${name}`] : [];
}

export const setup: ControllerSetup = (manager, deps) => {
  const proxies = manager.cache<CoderWorkspaceProxy>(coderWorkspaceProxyResource);
  proxies.addIndex(secretRefIndex, referencedSecrets);
  proxies.addIndex(controlPlaneIndex, referencedControlPlane);
  const ctx: ProxyContext = {
    ...deps,
    caches: {
      proxies,
      controlPlanes: manager.cache(coderControlPlaneResource),
      secrets: manager.cache(builtinResources.secret),
      deployments: manager.cache(builtinResources.deployment),
      services: manager.cache(builtinResources.service),
    },
  };
  const keys = (list: CoderWorkspaceProxy[]) => list.map((p) => requestKey(p.metadata.namespace, p.metadata.name!));
  /** The proxies that read this Secret, and those whose control plane's operator token it is. */
  const bySecret = (secret: V1Secret) => {
    const ns = secret.metadata?.namespace;
    const found = keys(proxies.byIndex(secretRefIndex, `${ns}/${secret.metadata?.name}`));
    if (secret.metadata?.labels?.[operatorTokenLabel] === 'true') {
      const owner = secret.metadata.ownerReferences?.find((r) => r.controller && r.kind === coderControlPlaneResource.kind);
      if (owner) found.push(...keys(proxies.byIndex(controlPlaneIndex, `${ns}/${owner.name}`)));
    }
    return found;
  };
  return manager
    .controller(controllerName)
    .for(coderWorkspaceProxyResource, ownWritesIgnored(deregistrationFinalizer))
    .owns(builtinResources.deployment, deploymentDrift)
    .owns(builtinResources.service, childDrift)
    .owns(builtinResources.secret, childDrift)
    .watches<V1Secret>(builtinResources.secret, bySecret)
    .watches<CoderControlPlane>(coderControlPlaneResource, (cp) =>
      keys(proxies.byIndex(controlPlaneIndex, `${cp.metadata.namespace}/${cp.metadata.name}`)),
    )
    .build((request, rc) => reconcileWorkspaceProxy(ctx, request, rc));
};
