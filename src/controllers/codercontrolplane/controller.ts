// CoderControlPlane controller wiring. For now it proves the runtime end to end: it records the
// generation it has seen in status.observedGeneration. The control-plane issue replaces the reconcile.
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import { writeStatusIfChanged } from '../../runtime/object-writes.ts';

export const controllerName = 'codercontrolplane';

export function setupCoderControlPlaneController(manager: Manager): Controller {
  const controlPlanes = manager.cache<CoderControlPlane>(coderControlPlaneResource);
  return manager.controller(controllerName)
    .for(coderControlPlaneResource)
    .build(async ({ namespace, name }) => {
      const cp = controlPlanes.get(namespace, name);
      if (!cp || cp.metadata.deletionTimestamp) return;
      await writeStatusIfChanged(manager.http, coderControlPlaneResource, cp, {
        ...cp.status,
        observedGeneration: cp.metadata.generation,
      });
    });
}
