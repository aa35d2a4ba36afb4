// CoderProvisioner controller wiring: the caches it reads, what it owns, and the indexes that map a
// CoderControlPlane and a Secret to every provisioner that uses them, so a control plane whose access
// changes, or a Secret that is created, marked or changed, reconciles them at once instead of by polling.
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { coderProvisionerResource } from '../../../generated/clients/coderprovisioner.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import { requestKey } from '../../runtime/controller.ts';
import { builtinResources } from '../../runtime/resource.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import { childDrift, deploymentDrift, ownWritesIgnored } from '../shared/event-filters.ts';
import type { ProvisionerContext } from './context.ts';
import { keySecretRef } from './desired/names.ts';
import { keyCleanupFinalizer } from './finalize.ts';
import { reconcileProvisioner } from './reconcile.ts';

const controllerName = 'coderprovisioner';
const controlPlaneIndex = 'control-plane';
const secretIndex = 'secrets';

/** namespace/name of the control plane a provisioner names (and of the one its key was made in). */
export function referencedControlPlanes(p: CoderProvisioner): string[] {
  const names = new Set([p.spec?.controlPlaneRef?.name?.trim(), p.status?.controlPlaneRefName].filter((n): n is string => !!n));
  return [...names].map((name) => `${p.metadata.namespace}/${name}`);
}

/** namespace/name of every Secret a provisioner reads or hands to its pods: the key Secret and extraEnv secretKeyRefs. */
export function referencedSecrets(p: CoderProvisioner): string[] {
  if (!p.metadata.name) return [];
  const names = new Set([keySecretRef(p).name]);
  for (const env of p.spec?.extraEnv ?? []) if (env.valueFrom?.secretKeyRef?.name) names.add(env.valueFrom.secretKeyRef.name);
  return [...names].map((name) => `${p.metadata.namespace}/${name}`);
}

export const setup: ControllerSetup = (manager, deps) => {
  const provisioners = manager.cache<CoderProvisioner>(coderProvisionerResource);
  provisioners.addIndex(controlPlaneIndex, referencedControlPlanes);
  provisioners.addIndex(secretIndex, referencedSecrets);
  const ctx: ProvisionerContext = {
    ...deps,
    caches: {
      provisioners,
      controlPlanes: manager.cache(coderControlPlaneResource),
      secrets: manager.cache(builtinResources.secret),
      deployments: manager.cache(builtinResources.deployment),
      serviceAccounts: manager.cache(builtinResources.serviceAccount),
      roles: manager.cache(builtinResources.role),
      roleBindings: manager.cache(builtinResources.roleBinding),
    },
  };
  const keysOf = (found: CoderProvisioner[]) => found.map((p) => requestKey(p.metadata.namespace, p.metadata.name!));
  return manager
    .controller(controllerName)
    .for(coderProvisionerResource, ownWritesIgnored(keyCleanupFinalizer))
    .owns(builtinResources.deployment, deploymentDrift)
    .owns(builtinResources.secret, childDrift)
    .owns(builtinResources.serviceAccount, childDrift)
    .owns(builtinResources.role, childDrift)
    .owns(builtinResources.roleBinding, childDrift)
    .watches<CoderControlPlane>(coderControlPlaneResource, (cp) =>
      keysOf(provisioners.byIndex(controlPlaneIndex, `${cp.metadata.namespace}/${cp.metadata.name}`)),
    )
    .watches<V1Secret>(builtinResources.secret, (secret) =>
      keysOf(provisioners.byIndex(secretIndex, `${secret.metadata?.namespace}/${secret.metadata?.name}`)),
    )
    .build((request, rc) => reconcileProvisioner(ctx, request, rc));
};
