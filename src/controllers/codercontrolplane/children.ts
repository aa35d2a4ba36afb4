// The Kubernetes objects a control plane owns: ServiceAccount, workspace RBAC (also in other namespaces,
// where they consent: workspace-rbac-apply.ts), Deployment, Service, and Ingress or HTTPRoute
// (exposure-apply.ts). All are built before the first write, applied only when they differ, and never over a
// same-named object the operator did not create for this control plane (ChildrenOwned).
import type { V1Deployment, V1Ingress, V1Service, V1ServiceAccount } from '@kubernetes/client-node';
import { CoderControlPlaneConditions, type CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import { allOrFirstFailure } from '../../runtime/all-or-first-failure.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { childrenOwnedCondition, OwnedChildren } from '../shared/workload/owned-children.ts';
import { liveRestartedAt } from '../shared/workload/pod-spec.ts';
import { soonestDelay } from '../shared/reconcile/outcome.ts';
import { accessUrlEnv } from './desired/env.ts';
import type { ControlPlaneContext } from './context.ts';
import { buildDeployment } from './desired/deployment.ts';
import { buildHTTPRoute, buildIngress, type HTTPRoute } from './desired/exposure.ts';
import { buildService } from './desired/service.ts';
import { buildServiceAccount } from './desired/service-account.ts';
import { buildWorkspaceRbac, type WorkspaceRbac } from './desired/workspace-rbac.ts';
import { applyExposure } from './exposure-apply.ts';
import type { ControlPlaneOutcome } from './status.ts';
import { applyWorkspaceRbac } from './workspace-rbac-apply.ts';

const { Exposed, WorkspaceRBACReady, ChildrenOwned } = CoderControlPlaneConditions;

/**
 * Sets Exposed (removed when spec.expose is unset), WorkspaceRBACReady (removed when workspacePerms is
 * false) and ChildrenOwned; carries the Deployment as the cache has it (undefined when it is not ours).
 */
export interface ChildrenOutcome extends ControlPlaneOutcome {
  deployment: V1Deployment | undefined;
}

/** Every child the spec asks for, built before the first write: a spec that cannot be built changes nothing. */
interface DesiredChildren {
  serviceAccount: V1ServiceAccount | undefined;
  workspaceRbac: WorkspaceRbac[];
  deployment: V1Deployment;
  service: V1Service;
  ingress: V1Ingress | undefined;
  httpRoute: HTTPRoute | undefined;
}

/** Throws SpecError when the spec cannot be built; reads (the envFrom sources) but never writes. */
async function desiredChildren(ctx: ControlPlaneContext, cp: CoderControlPlane, children: OwnedChildren): Promise<DesiredChildren> {
  const live = ctx.caches.deployments.get(cp.metadata.namespace, cp.metadata.name!);
  const restartedAt = live && children.controls(live) ? liveRestartedAt(live) : undefined;
  return {
    serviceAccount: buildServiceAccount(cp),
    workspaceRbac: buildWorkspaceRbac(cp),
    deployment: buildDeployment(cp, { accessUrlFromEnvFrom: await envFromDefinesAccessURL(ctx, cp), restartedAt }),
    service: buildService(cp),
    ingress: cp.spec?.expose?.ingress ? buildIngress(cp) : undefined,
    httpRoute: cp.spec?.expose?.gateway ? buildHTTPRoute(cp) : undefined,
  };
}

export async function applyChildren(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<ChildrenOutcome> {
  const children = new OwnedChildren(ctx.writer, cp);
  const desired = await desiredChildren(ctx, cp, children);
  // The pods' ServiceAccount first (the API server refuses pods whose ServiceAccount does not exist), then
  // the rest at once: each step is a read and a write or two, and the reconcile waits for the slowest only.
  await applyServiceAccount(ctx, cp, desired.serviceAccount, children);
  const [workspaceRbac, deployment, , { exposed, requeueAfterMs }] = await allOrFirstFailure([
    applyWorkspaceRbac(ctx, cp, desired.workspaceRbac),
    applyDeployment(ctx, cp, desired.deployment, children),
    children.apply(builtinResources.service, desired.service, ctx.caches.services.get(cp.metadata.namespace, cp.metadata.name!)),
    applyExposure(ctx, cp, desired, children),
  ]);
  return {
    deployment,
    conditions: {
      [Exposed.type]: exposed,
      [WorkspaceRBACReady.type]: workspaceRbac.condition,
      [ChildrenOwned.type]: childrenOwnedCondition(ChildrenOwned, children.foreign, 'this control plane'),
    },
    requeueAfterMs: soonestDelay(requeueAfterMs, workspaceRbac.requeueAfterMs),
  };
}

async function applyServiceAccount(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  desired: V1ServiceAccount | undefined,
  children: OwnedChildren,
): Promise<void> {
  if (desired) {
    const cached = ctx.caches.serviceAccounts.get(desired.metadata!.namespace, desired.metadata!.name!);
    await children.apply(builtinResources.serviceAccount, desired, cached);
    return;
  }
  // disableCreate: let go of the ServiceAccounts this control plane controls, without deleting them.
  for (const sa of ctx.caches.serviceAccounts.list(cp.metadata.namespace)) {
    if (!children.controls(sa)) continue;
    await ctx.writer.mergePatch(builtinResources.serviceAccount, sa, {
      metadata: { ownerReferences: (sa.metadata!.ownerReferences ?? []).filter((r) => r.uid !== cp.metadata.uid) },
    });
  }
}

async function applyDeployment(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  desired: V1Deployment,
  children: OwnedChildren,
): Promise<V1Deployment | undefined> {
  const live = ctx.caches.deployments.get(cp.metadata.namespace, cp.metadata.name!);
  const object = await children.apply(builtinResources.deployment, desired, live);
  if (!object) return undefined;
  // The cache holds the newest status the Deployment controller wrote.
  return ctx.caches.deployments.get(cp.metadata.namespace, cp.metadata.name!) ?? object;
}

/** Whether a ConfigMap or Secret of spec.envFrom defines CODER_ACCESS_URL (read live, as the original does). */
async function envFromDefinesAccessURL(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<boolean> {
  if (cp.spec?.envUseClusterAccessURL === false) return false;
  for (const source of cp.spec?.envFrom ?? []) {
    const prefix = source.prefix ?? '';
    if (prefix && !accessUrlEnv.startsWith(prefix)) continue;
    const key = accessUrlEnv.slice(prefix.length);
    if (!key) continue;
    const ref = source.configMapRef ?? source.secretRef;
    if (!ref?.name) continue;
    const resource = source.configMapRef ? builtinResources.configMap : builtinResources.secret;
    const obj = await ctx.writer.get<KubeObject & { data?: Record<string, string> }>(resource, cp.metadata.namespace, ref.name);
    if (obj?.data && key in obj.data) return true;
  }
  return false;
}
