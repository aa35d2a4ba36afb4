// CoderWorkspaceProxy controller wiring: the caches it reads, what it owns, and two indexes so that a change
// reaches the proxies it concerns at once: from a Secret to every proxy that names it (token, credentials,
// generated token, extraEnv secretKeyRefs), and from a control plane (and its operator token Secret) to the
// proxies that register through it.
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { coderWorkspaceProxyResource } from '../../../generated/clients/coderworkspaceproxy.ts';
import type { CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { reconcilerLoadingKind } from '../shared/reconcile/kind.ts';
import { watchReferences } from '../shared/reference-watches.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import { childDrift, deploymentDrift, ownWritesIgnored } from '../shared/event-filters.ts';
import type { ProxyContext } from './context.ts';
import { tokenSecretName } from './desired/names.ts';
import { deregistrationFinalizer } from '../shared/finalizers.ts';

const controllerName = 'coderworkspaceproxy';

/** Every Secret a proxy reads, adopts or hands to its pods. */
function referencedSecrets(proxy: CoderWorkspaceProxy): (string | undefined)[] {
  const spec = proxy.spec ?? {};
  return [
    spec.proxySessionTokenSecretRef?.name,
    spec.bootstrap?.credentialsSecretRef?.name,
    spec.bootstrap || spec.controlPlaneRef ? tokenSecretName(proxy) : undefined,
    ...(spec.extraEnv ?? []).map((env) => env.valueFrom?.secretKeyRef?.name),
  ];
}

export const setup: ControllerSetup = (manager, deps) => {
  const proxies = manager.cache<CoderWorkspaceProxy>(coderWorkspaceProxyResource);
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
  const builder = manager
    .controller(controllerName)
    .for(coderWorkspaceProxyResource, ownWritesIgnored(deregistrationFinalizer))
    .owns(builtinResources.deployment, deploymentDrift)
    .owns(builtinResources.service, childDrift)
    .owns(builtinResources.secret, childDrift);
  // A control plane's operator token Secret reaches the proxies that register through it.
  const references = {
    controlPlanes: (p: CoderWorkspaceProxy) => [p.spec?.controlPlaneRef?.name],
    secrets: referencedSecrets,
    operatorTokens: true,
  };
  return watchReferences(builder, proxies, references).build(
    reconcilerLoadingKind(ctx, async () => (await import('./reconcile.ts')).workspaceProxyKind),
  );
};
