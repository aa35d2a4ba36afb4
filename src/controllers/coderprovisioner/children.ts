// The Kubernetes objects a provisioner owns: the key Secret, ServiceAccount, Role, RoleBinding and
// Deployment. Applied only when they differ, and never over a same-named object the operator did not
// create for this provisioner (the key Secret has its own rule: credential-secrets.ts).
import type { V1Deployment, V1Secret } from '@kubernetes/client-node';
import { coderProvisionerResource } from '../../../generated/clients/coderprovisioner.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import {
  CoderProvisionerConditions as C,
  type CoderProvisioner,
  type CoderProvisionerStatus,
} from '../../../generated/types/coderprovisioner.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { allOrFirstFailure } from '../../runtime/all-or-first-failure.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { refusedSpec } from '../shared/child-refused.ts';
import { warnOnNewProblem } from '../shared/event-target.ts';
import { notControlledMessage, OwnedChildren } from '../shared/workload/owned-children.ts';
import { liveRestartedAt } from '../shared/workload/pod-spec.ts';
import type { ProvisionerContext } from './context.ts';
import type { KeySecretState } from './credential-secrets.ts';
import { buildDeployment, podCoderURL } from './desired/deployment.ts';
import { buildKeySecret, keyWriteToUserSecret } from './desired/key-secret.ts';
import { defaultImage, keySecretRef, namespaceOf, workloadName } from './desired/names.ts';
import { buildRole, buildRoleBinding, buildServiceAccount } from './desired/rbac.ts';
import type { KeyInUse } from './key-step.ts';
import type { ProvisionerOutcome } from './status.ts';

/** ProvisionerKeySecretReady, and DeploymentReady while a child is someone else's; carries the Deployment (undefined then). */
export interface ChildrenOutcome extends ProvisionerOutcome {
  deployment: V1Deployment | undefined;
}

/**
 * The key Secret (written only with a new key: a cached Secret may be older than the one a previous reconcile
 * wrote) and the children. When Coder made the key in this reconcile, a failure here must not lose it: the
 * key step's status fields are already in the outcome, and only they tell the next attempt that the key is
 * this provisioner's (else it meets a key it never recorded, and reports KeyNameTaken). So the failure is
 * reported with them: a child the API server refuses in SpecValid, any other error thrown once the status is
 * written.
 */
export async function applyKeySecretAndChildren(
  ctx: ProvisionerContext,
  p: CoderProvisioner,
  cp: CoderControlPlane,
  key: KeyInUse,
  keySecret: { keySecret: KeySecretState; liveKeySecret: V1Secret | undefined },
): Promise<ChildrenOutcome> {
  try {
    if (key.created) {
      const ref = keySecretRef(p);
      const { keySecret: state, liveKeySecret } = keySecret;
      // A user's Secret is written against the version whose value the credential step judged ours to replace.
      if (state.kind === 'usable' && !state.created && liveKeySecret)
        await ctx.writer.mergePatch(builtinResources.secret, liveKeySecret, keyWriteToUserSecret(p, ref, key.key, liveKeySecret));
      else await ctx.writer.apply(builtinResources.secret, buildKeySecret(p, ref, key.key), liveKeySecret);
    }
    return await applyChildren(ctx, p, cp, key.keyID);
  } catch (err) {
    if (!key.created) throw err;
    const refused = await refusedSpec<CoderProvisionerStatus>(ctx, coderProvisionerResource, p, err);
    if (refused) return { ...refused, conditionsOnly: false, deployment: undefined };
    return { error: err instanceof Error ? err : new Error(String(err)), deployment: undefined };
  }
}

/** Builds everything first (SpecError leaves the cluster unchanged), then applies in order, the Deployment last. */
async function applyChildren(ctx: ProvisionerContext, p: CoderProvisioner, cp: CoderControlPlane, keyID: string): Promise<ChildrenOutcome> {
  const ns = namespaceOf(p);
  const name = workloadName(p);
  const children = new OwnedChildren(ctx.writer, p);
  const liveDeployment = ctx.caches.deployments.get(ns, name);
  const deployment = buildDeployment(p, {
    coderURL: podCoderURL(cp),
    defaultImage: cp.spec?.image || defaultImage,
    keyID,
    restartedAt: liveDeployment && children.controls(liveDeployment) ? liveRestartedAt(liveDeployment) : undefined,
  });
  const serviceAccount = buildServiceAccount(p);
  // The pods' ServiceAccount first (the API server refuses pods whose ServiceAccount does not exist) and the
  // Role before its binding (binding a Role that does not exist yet is refused as an escalation); the
  // binding and the Deployment at once.
  await children.apply(builtinResources.serviceAccount, serviceAccount, ctx.caches.serviceAccounts.get(ns, serviceAccount.metadata!.name!));
  await children.apply(builtinResources.role, buildRole(p), ctx.caches.roles.get(ns, name));
  const [, applied] = await allOrFirstFailure([
    children.apply(builtinResources.roleBinding, buildRoleBinding(p), ctx.caches.roleBindings.get(ns, name)),
    children.apply(builtinResources.deployment, deployment, liveDeployment),
  ]);
  const ref = keySecretRef(p);
  const keySecretReady: ConditionOf<typeof C.ProvisionerKeySecretReady> = {
    type: C.ProvisionerKeySecretReady.type,
    status: 'True',
    reason: C.ProvisionerKeySecretReady.reasons.SecretReady,
    message: `Secret "${ref.name}" holds the provisioner key at key "${ref.key}".`,
  };
  const conditions = { [C.ProvisionerKeySecretReady.type]: keySecretReady };
  if (children.foreign.length) {
    const notOwned: ConditionOf<typeof C.DeploymentReady> = {
      type: C.DeploymentReady.type,
      status: 'False',
      reason: C.DeploymentReady.reasons.ObjectNotOwned,
      message: `${notControlledMessage(children.foreign, 'this provisioner')}; the operator leaves them untouched. Delete or rename them.`,
    };
    // Not in the kind's warnings: DeploymentReady is False too while pods start, which is no problem to warn of.
    await warnOnNewProblem(ctx.events, p, notOwned, 'ApplyChildren');
    return { conditions: { ...conditions, [C.DeploymentReady.type]: notOwned }, deployment: undefined };
  }
  // The cache holds the newest status the Deployment controller wrote, once it has seen the object.
  return { conditions, deployment: ctx.caches.deployments.get(ns, name) ?? applied };
}

/** The Deployment this provisioner controls, as the cache has it. */
export function ownedDeployment(ctx: ProvisionerContext, p: CoderProvisioner): V1Deployment | undefined {
  const live = ctx.caches.deployments.get(namespaceOf(p), workloadName(p));
  return live && isControllerOwnedBy(live, p) ? live : undefined;
}
