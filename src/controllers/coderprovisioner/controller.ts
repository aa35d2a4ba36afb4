// CoderProvisioner controller wiring: the caches it reads, what it owns, and the indexes that map a
// CoderControlPlane and a Secret to every provisioner that uses them, so a control plane whose access
// changes, or a Secret that is created, marked or changed, reconciles them at once instead of by polling.
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { coderProvisionerResource } from '../../../generated/clients/coderprovisioner.ts';
import type { CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { reconcilerLoadingKind } from '../shared/reconcile/kind.ts';
import { watchReferences } from '../shared/reference-watches.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import { childDrift, deploymentDrift, ownWritesIgnored } from '../shared/event-filters.ts';
import type { ProvisionerContext } from './context.ts';
import { keySecretRef } from './desired/names.ts';
import { keyCleanupFinalizer } from '../shared/finalizers.ts';

const controllerName = 'coderprovisioner';

/** The control plane a provisioner names, and the one its key was made in. */
function referencedControlPlanes(p: CoderProvisioner): (string | undefined)[] {
  return [p.spec?.controlPlaneRef?.name, p.status?.controlPlaneRefName];
}

/** Every Secret a provisioner reads or hands to its pods: the key Secret and extraEnv secretKeyRefs. */
function referencedSecrets(p: CoderProvisioner): (string | undefined)[] {
  if (!p.metadata.name) return [];
  return [keySecretRef(p).name, ...(p.spec?.extraEnv ?? []).map((env) => env.valueFrom?.secretKeyRef?.name)];
}

export const setup: ControllerSetup = (manager, deps) => {
  const provisioners = manager.cache<CoderProvisioner>(coderProvisionerResource);
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
  const builder = manager
    .controller(controllerName)
    .for(coderProvisionerResource, ownWritesIgnored(keyCleanupFinalizer))
    .owns(builtinResources.deployment, deploymentDrift)
    .owns(builtinResources.secret, childDrift)
    .owns(builtinResources.serviceAccount, childDrift)
    .owns(builtinResources.role, childDrift)
    .owns(builtinResources.roleBinding, childDrift);
  return watchReferences(builder, provisioners, { controlPlanes: referencedControlPlanes, secrets: referencedSecrets }).build(
    reconcilerLoadingKind(ctx, async () => (await import('./reconcile.ts')).provisionerKind),
  );
};
