// CoderAIGatewayKey controller wiring: the caches it reads, the Secrets it owns, and the watches that bring a
// change of its control plane or of a destination Secret to it at once; rotation and drift by requeue.
import type { V1Secret } from '@kubernetes/client-node';
import { coderAIGatewayKeyResource } from '../../../generated/clients/coderaigatewaykey.ts';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import type { CoderAIGatewayKey } from '../../../generated/types/coderaigatewaykey.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { CoderFacts } from '../shared/coder-facts.ts';
import { defaultCoderResyncMs, type ControllerSetup } from '../shared/deps.ts';
import { referenceWatches } from '../shared/reference-watches.ts';
import type { GatewayKeyContext } from './context.ts';
import { reconcileGatewayKey } from './reconcile.ts';

const controllerName = 'coderaigatewaykey';

export const setup: ControllerSetup = (manager, deps) => {
  const keys = manager.cache<CoderAIGatewayKey>(coderAIGatewayKeyResource);
  const resyncMs = deps.coderResyncMs ?? defaultCoderResyncMs;
  const ctx: GatewayKeyContext = {
    ...deps,
    caches: {
      keys,
      controlPlanes: manager.cache<CoderControlPlane>(coderControlPlaneResource),
      secrets: manager.cache<V1Secret>(builtinResources.secret),
    },
    facts: deps.coderFacts ?? new CoderFacts({ buildInfoTtlMs: resyncMs, entitlementsTtlMs: Math.min(2 * 60_000, resyncMs) }),
    resyncMs,
    pending: new Map(),
  };
  const watches = referenceWatches(keys, (k) => k.spec.destinations.map((d) => d.name));
  return manager
    .controller(controllerName)
    .for(coderAIGatewayKeyResource)
    .watches<CoderControlPlane>(coderControlPlaneResource, watches.fromControlPlane)
    .watches<V1Secret>(builtinResources.secret, watches.fromSecret)
    .build((request, rc) => reconcileGatewayKey(ctx, request, rc));
};
