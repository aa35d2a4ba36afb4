// What the controllers of the kinds that keep an object in a control plane's Coder (the AI kinds) are built
// from, and their wiring: the caches they read, the shared knowledge of each control plane's Coder, the
// resync period, and the watches that bring a change of the control plane or of a Secret the object names
// to it at once. Drift in Coder is found by the resync each reconcile asks for; the object's own status and
// finalizer writes bring no reconcile.
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import type { Cache } from '../../../runtime/cache.ts';
import type { Condition } from '../../../runtime/conditions.ts';
import type { Controller } from '../../../runtime/controller.ts';
import type { EventFilter } from '../../../runtime/event-filter.ts';
import type { KubeObject, ObjectMeta } from '../../../runtime/informer.ts';
import type { Manager } from '../../../runtime/manager.ts';
import { builtinResources, type ResourceKind } from '../../../runtime/resource.ts';
import { CoderFacts } from '../coder-facts.ts';
import { defaultCoderResyncMs, type ControllerDeps } from '../deps.ts';
import { ownWritesIgnored } from '../event-filters.ts';
import { reconcilerLoadingKind, type Kind, type ReconciledObject } from '../reconcile/kind.ts';
import type { AnyConditionChanges } from '../reconcile/outcome.ts';
import { watchReferences } from '../reference-watches.ts';
import { coderObjectFinalizer } from '../finalizers.ts';

export interface CoderObject extends KubeObject {
  metadata: ObjectMeta;
  spec: { controlPlaneRef: { name: string }; deletionPolicy?: string };
  status?: { conditions?: readonly Condition[]; observedGeneration?: number };
}

export interface CoderObjectContext<T extends CoderObject> extends ControllerDeps {
  /** The kind reconciled; each of them calls Coder APIs that need the owner role. */
  resource: ResourceKind;
  caches: {
    objects: Cache<T>;
    controlPlanes: Cache<CoderControlPlane>;
    secrets: Cache<V1Secret>;
  };
  facts: CoderFacts;
  resyncMs: number;
}

/** The context of a kind's controller; `extra` adds what only that kind keeps. */
export function coderObjectContext<T extends CoderObject, X extends object = object>(
  manager: Manager,
  deps: ControllerDeps,
  resource: ResourceKind,
  extra?: X,
): CoderObjectContext<T> & X {
  const resyncMs = deps.coderResyncMs ?? defaultCoderResyncMs;
  return {
    ...deps,
    resource,
    caches: {
      objects: manager.cache<T>(resource),
      controlPlanes: manager.cache<CoderControlPlane>(coderControlPlaneResource),
      secrets: manager.cache<V1Secret>(builtinResources.secret),
    },
    facts: deps.coderFacts ?? new CoderFacts({ buildInfoTtlMs: resyncMs, entitlementsTtlMs: Math.min(2 * 60_000, resyncMs) }),
    resyncMs,
    ...(extra as X),
  };
}

/**
 * The controller `name` running the kind that `loadKind` imports (with the first object reconciled), watching
 * control planes and the Secrets `secretNames` lists, and with `ownKind` the kind itself for the other objects an
 * event of one brings back.
 */
export function coderObjectController<
  T extends CoderObject & ReconciledObject,
  Ctx extends CoderObjectContext<T>,
  Changes extends AnyConditionChanges,
>(
  manager: Manager,
  name: string,
  ctx: Ctx,
  loadKind: () => Promise<Kind<T, Ctx, Changes>>,
  secretNames: (obj: T) => string[],
  ownKind?: { map: (obj: T) => string[]; filter: EventFilter<T> },
): Controller {
  const builder = manager.controller(name).for(ctx.resource, ownWritesIgnored<T>(coderObjectFinalizer));
  watchReferences(builder, ctx.caches.objects, { controlPlanes: (obj) => [obj.spec.controlPlaneRef?.name], secrets: secretNames });
  if (ownKind) builder.watches<T>(ctx.resource, ownKind.map, ownKind.filter);
  return builder.build(reconcilerLoadingKind(ctx, loadKind));
}
