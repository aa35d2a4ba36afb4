// CoderMCPServer controller wiring: the caches it reads and the watches that bring a change of its control
// plane or of a Secret it names to it at once; drift in Coder is found by the resync each reconcile asks for.
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { coderMCPServerResource } from '../../../generated/clients/codermcpserver.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderMCPServer } from '../../../generated/types/codermcpserver.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { CoderFacts } from '../shared/coder-facts.ts';
import { defaultCoderResyncMs, type ControllerSetup } from '../shared/deps.ts';
import { referenceWatches } from '../shared/reference-watches.ts';
import type { MCPServerContext } from './context.ts';
import { credentialRefs } from './desired.ts';
import { reconcileMCPServer } from './reconcile.ts';

const controllerName = 'codermcpserver';

export const setup: ControllerSetup = (manager, deps) => {
  const servers = manager.cache<CoderMCPServer>(coderMCPServerResource);
  const resyncMs = deps.coderResyncMs ?? defaultCoderResyncMs;
  const ctx: MCPServerContext = {
    ...deps,
    caches: {
      servers,
      controlPlanes: manager.cache<CoderControlPlane>(coderControlPlaneResource),
      secrets: manager.cache<V1Secret>(builtinResources.secret),
    },
    facts: deps.coderFacts ?? new CoderFacts({ buildInfoTtlMs: resyncMs, entitlementsTtlMs: Math.min(2 * 60_000, resyncMs) }),
    resyncMs,
    createdIDs: new Map(),
  };
  const watches = referenceWatches(servers, (s) => credentialRefs(s).map((r) => r.ref.name));
  return manager
    .controller(controllerName)
    .for(coderMCPServerResource)
    .watches<CoderControlPlane>(coderControlPlaneResource, watches.fromControlPlane)
    .watches<V1Secret>(builtinResources.secret, watches.fromSecret)
    .build((request, rc) => reconcileMCPServer(ctx, request, rc));
};
