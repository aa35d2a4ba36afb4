// The proxy's Deployment and Service, applied only when they differ and never over a same-named object
// the operator did not create for this proxy (ChildrenOwned); and the Deployment removed when its pods
// would receive a Secret this proxy may no longer use.
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { CoderWorkspaceProxyConditions as C, type CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import { allOrFirstFailure } from '../../runtime/all-or-first-failure.ts';
import { builtinResources, type ResourceKind } from '../../runtime/resource.ts';
import { applyTarget } from '../shared/foreign-object.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { secretsReferencedBy } from '../shared/pod-spec.ts';
import type { ProxyContext } from './context.ts';
import { childName } from './names.ts';

const { type, reasons } = C.ChildrenOwned;

export interface ChildrenOutcome {
  condition: ConditionInput;
  /** The Deployment as the API server has it; undefined when it is not ours or was not applied. */
  deployment: V1Deployment | undefined;
}

async function applyOwned<T extends KubeObject>(
  ctx: ProxyContext,
  proxy: CoderWorkspaceProxy,
  resource: ResourceKind,
  desired: T,
  cached: T | undefined,
  foreign: string[],
): Promise<T | undefined> {
  const target = await applyTarget(ctx.writer, resource, desired, cached, (live) => isControllerOwnedBy(live as V1Service, proxy));
  if (target.foreign) {
    foreign.push(target.description);
    return undefined;
  }
  return (await ctx.writer.apply(resource, desired, target.live)).object;
}

/**
 * Applies the Service, and the Deployment when one is given (it is not while the proxy has no usable token).
 * `deploymentRemoved`: the Deployment was just deleted (removeDeploymentReferencing), whatever the cache shows.
 */
export async function applyChildren(
  ctx: ProxyContext,
  proxy: CoderWorkspaceProxy,
  desired: { service: V1Service; deployment?: V1Deployment },
  deploymentRemoved = false,
): Promise<ChildrenOutcome> {
  const foreign: string[] = [];
  const { namespace } = proxy.metadata;
  const name = desired.service.metadata!.name!;
  const cachedDeployment = deploymentRemoved ? undefined : ctx.caches.deployments.get(namespace, name);
  const [, deployment] = await allOrFirstFailure([
    applyOwned(ctx, proxy, builtinResources.service, desired.service, ctx.caches.services.get(namespace, name), foreign),
    desired.deployment
      ? applyOwned(ctx, proxy, builtinResources.deployment, desired.deployment, cachedDeployment, foreign)
      : Promise.resolve(cachedDeployment && isControllerOwnedBy(cachedDeployment, proxy) ? cachedDeployment : undefined),
  ]);
  return { condition: childrenOwnedCondition(foreign), deployment };
}

/**
 * A Secret whose consent is gone must not reach another pod: the Deployment this proxy controls is deleted
 * when its pod template still hands one of `refused` to the proxy. Returns whether it deleted.
 */
export async function removeDeploymentReferencing(ctx: ProxyContext, proxy: CoderWorkspaceProxy, refused: Set<string>): Promise<boolean> {
  const live = ctx.caches.deployments.get(proxy.metadata.namespace, childName(proxy));
  if (!live || !isControllerOwnedBy(live, proxy) || ![...secretsReferencedBy(live)].some((name) => refused.has(name))) return false;
  // By UID: a same-named Deployment made since the cache saw this one is not this proxy's to delete.
  return ctx.writer.deleteExactly(builtinResources.deployment, live);
}

function childrenOwnedCondition(foreign: string[]): ConditionInput {
  if (!foreign.length) return { type, status: 'True', reason: reasons.Owned, message: 'Every child object is managed by this proxy.' };
  const one = foreign.length === 1;
  return {
    type,
    status: 'False',
    reason: reasons.ObjectNotOwned,
    message:
      `${foreign.toSorted().join(', ')} already exist${one ? 's' : ''} and ${one ? 'is' : 'are'} not controlled by this proxy; ` +
      'the operator leaves them untouched and never deletes them. Delete or rename them to let the operator create its own.',
  };
}
