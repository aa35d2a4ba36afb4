// The Kubernetes objects a provisioner owns: the key Secret, ServiceAccount, Role, RoleBinding and
// Deployment. Applied only when they differ, and never over a same-named object the operator did not
// create for this provisioner (the key Secret has its own rule: credential-secrets.ts).
import type { V1Deployment, V1Secret } from '@kubernetes/client-node';
import { CoderProvisionerConditions as C, type CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import { allOrFirstFailure } from '../../runtime/all-or-first-failure.ts';
import { builtinResources, type ResourceKind } from '../../runtime/resource.ts';
import { applyTarget } from '../shared/foreign-object.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { liveRestartedAt, secretsReferencedBy } from '../shared/pod-spec.ts';
import type { ProvisionerContext } from './context.ts';
import { buildDeployment } from './desired/deployment.ts';
import { buildKeySecret } from './desired/key-secret.ts';
import { defaultImage, keySecretRef, namespaceOf, workloadName } from './desired/names.ts';
import { buildRole, buildRoleBinding, buildServiceAccount } from './desired/rbac.ts';
import { deploymentReadyCondition } from './readiness.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';

export interface ChildrenOutcome {
  deployment: V1Deployment | undefined;
  condition: ConditionInput;
}

/** The key Secret with `key` at its key; `created` when the operator creates (or already controls) it. */
export async function applyKeySecret(
  ctx: ProvisionerContext,
  p: CoderProvisioner,
  key: string,
  created: boolean,
  live: V1Secret | undefined,
) {
  await ctx.writer.apply(builtinResources.secret, buildKeySecret(p, keySecretRef(p), key, created), live);
}

/** Builds everything first (SpecError leaves the cluster unchanged), then applies in order, the Deployment last. */
export async function applyChildren(
  ctx: ProvisionerContext,
  p: CoderProvisioner,
  cp: CoderControlPlane,
  keyID: string,
): Promise<ChildrenOutcome> {
  const ns = namespaceOf(p);
  const name = workloadName(p);
  const liveDeployment = ctx.caches.deployments.get(ns, name);
  const deployment = buildDeployment(p, {
    coderURL: cp.status!.url!,
    defaultImage: cp.spec?.image || defaultImage,
    keyID,
    restartedAt: liveDeployment && isControllerOwnedBy(liveDeployment, p) ? liveRestartedAt(liveDeployment) : undefined,
  });
  const foreign: string[] = [];
  const applyOwned = async (resource: ResourceKind, obj: KubeObject, cached: KubeObject | undefined) => {
    const target = await applyTarget(ctx.writer, resource, obj, cached, (live) => isControllerOwnedBy(live as V1Secret, p));
    if (target.foreign) foreign.push(target.description);
    else return (await ctx.writer.apply(resource, obj, target.live)).object;
  };
  const serviceAccount = buildServiceAccount(p);
  // The pods' ServiceAccount first (the API server refuses pods whose ServiceAccount does not exist) and the
  // Role before its binding (binding a Role that does not exist yet is refused as an escalation); the
  // binding and the Deployment at once.
  await applyOwned(builtinResources.serviceAccount, serviceAccount, ctx.caches.serviceAccounts.get(ns, serviceAccount.metadata!.name!));
  await applyOwned(builtinResources.role, buildRole(p), ctx.caches.roles.get(ns, name));
  const [, applied] = await allOrFirstFailure([
    applyOwned(builtinResources.roleBinding, buildRoleBinding(p), ctx.caches.roleBindings.get(ns, name)),
    applyOwned(builtinResources.deployment, deployment, liveDeployment),
  ]);
  if (foreign.length) {
    return {
      deployment: undefined,
      condition: {
        type: C.DeploymentReady.type,
        status: 'False',
        reason: C.DeploymentReady.reasons.ObjectNotOwned,
        message: `${foreign.toSorted().join(', ')} already exist${foreign.length === 1 ? 's' : ''} and ${foreign.length === 1 ? 'is' : 'are'} not controlled by this provisioner; the operator leaves them untouched. Delete or rename them.`,
      },
    };
  }
  // The cache holds the newest status the Deployment controller wrote, once it has seen the object.
  const current = ctx.caches.deployments.get(ns, name) ?? (applied as V1Deployment);
  return { deployment: current, condition: deploymentReadyCondition(current) };
}

/** The Deployment this provisioner controls, as the cache has it. */
export function ownedDeployment(ctx: ProvisionerContext, p: CoderProvisioner): V1Deployment | undefined {
  const live = ctx.caches.deployments.get(namespaceOf(p), workloadName(p));
  return live && isControllerOwnedBy(live, p) ? live : undefined;
}

/**
 * A Secret whose consent is gone must not reach another pod: the Deployment is deleted when its pod
 * template still hands one of `refused` to the daemons. Returns whether it deleted.
 */
export async function removeDeploymentReferencing(ctx: ProvisionerContext, p: CoderProvisioner, refused: Set<string>): Promise<boolean> {
  const live = ownedDeployment(ctx, p);
  if (!live || ![...secretsReferencedBy(live)].some((name) => refused.has(name))) return false;
  // By UID: a same-named Deployment made since the cache saw this one is not this provisioner's to delete.
  return ctx.writer.deleteExactly(builtinResources.deployment, live);
}
