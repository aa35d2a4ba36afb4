// The Kubernetes objects a control plane owns: ServiceAccount, workspace RBAC (also in other
// namespaces), Deployment, Service, and Ingress or HTTPRoute. Applied only when they differ.
import { type V1Deployment, type V1Ingress } from '@kubernetes/client-node';
import {
  CoderControlPlaneConditions,
  type CoderControlPlane,
  type CoderControlPlaneStatus,
} from '../../../generated/types/codercontrolplane.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { isControllerOwnedBy } from '../shared/ownership.ts';
import { liveRestartedAt } from '../shared/pod-spec.ts';
import type { StepOutcome } from '../shared/step-outcome.ts';
import { accessUrlEnv } from './desired/env.ts';
import type { ControlPlaneContext } from './context.ts';
import { buildDeployment } from './desired/deployment.ts';
import { buildHTTPRoute, buildIngress, type HTTPRoute } from './desired/exposure.ts';
import { buildService } from './desired/service.ts';
import { buildServiceAccount } from './desired/service-account.ts';
import { buildWorkspaceRbac, isManagedWorkspaceRbac, workspaceRbacIdentityLabels, workspaceRbacKeepSet } from './desired/workspace-rbac.ts';

export const exposureRetryMs = 2 * 60_000;
const { Exposed } = CoderControlPlaneConditions;

/** Sets Exposed (removed when spec.expose is unset); carries the Deployment as the cache has it. */
export interface ChildrenOutcome extends StepOutcome<CoderControlPlaneStatus> {
  deployment: V1Deployment;
}

interface ExposureOutcome {
  exposed?: ConditionInput;
  requeueAfterMs?: number;
}

export async function applyChildren(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<ChildrenOutcome> {
  await applyServiceAccount(ctx, cp);
  await applyWorkspaceRbac(ctx, cp);
  const deployment = await applyDeployment(ctx, cp);
  const ns = cp.metadata.namespace!;
  await ctx.writer.apply(builtinResources.service, buildService(cp), ctx.caches.services.get(ns, cp.metadata.name!));
  const { exposed, requeueAfterMs } = await applyExposure(ctx, cp);
  return { deployment, conditions: { [Exposed.type]: exposed }, requeueAfterMs };
}

async function applyServiceAccount(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<void> {
  const desired = buildServiceAccount(cp);
  if (desired) {
    await ctx.writer.apply(
      builtinResources.serviceAccount,
      desired,
      ctx.caches.serviceAccounts.get(desired.metadata!.namespace, desired.metadata!.name!),
    );
    return;
  }
  // disableCreate: let go of the ServiceAccounts this control plane controls, without deleting them.
  for (const sa of ctx.caches.serviceAccounts.list(cp.metadata.namespace)) {
    if (!isControllerOwnedBy(sa, cp)) continue;
    await ctx.writer.mergePatch(builtinResources.serviceAccount, sa, {
      metadata: { ownerReferences: (sa.metadata!.ownerReferences ?? []).filter((r) => r.uid !== cp.metadata.uid) },
    });
  }
}

async function applyWorkspaceRbac(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<void> {
  const desired = cp.spec?.rbac?.workspacePerms === false ? [] : buildWorkspaceRbac(cp);
  for (const { role, roleBinding } of desired) {
    await ctx.writer.apply(builtinResources.role, role, ctx.caches.roles.get(role.metadata!.namespace, role.metadata!.name!));
    await ctx.writer.apply(
      builtinResources.roleBinding,
      roleBinding,
      ctx.caches.roleBindings.get(roleBinding.metadata!.namespace, roleBinding.metadata!.name!),
    );
  }
  await deleteUnwantedWorkspaceRbac(ctx, cp, workspaceRbacKeepSet(desired));
}

/** Deletes the workspace Roles and RoleBindings of this control plane that are not in `keep` (all on deletion). */
export async function deleteUnwantedWorkspaceRbac(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  keep: ReadonlySet<string>,
): Promise<void> {
  const identity = Object.entries(workspaceRbacIdentityLabels(cp));
  const labelled = (obj: { metadata?: { labels?: Record<string, string> } }) => identity.every(([k, v]) => obj.metadata?.labels?.[k] === v);
  for (const role of ctx.caches.roles.list().filter(labelled)) {
    if (isManagedWorkspaceRbac(cp, role, keep))
      await ctx.writer.delete(builtinResources.role, role.metadata!.namespace, role.metadata!.name!);
  }
  for (const binding of ctx.caches.roleBindings.list().filter(labelled)) {
    if (isManagedWorkspaceRbac(cp, binding, keep))
      await ctx.writer.delete(builtinResources.roleBinding, binding.metadata!.namespace, binding.metadata!.name!);
  }
}

async function applyDeployment(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<V1Deployment> {
  const live = ctx.caches.deployments.get(cp.metadata.namespace, cp.metadata.name!);
  const restartedAt = liveRestartedAt(live);
  const desired = buildDeployment(cp, { accessUrlFromEnvFrom: await envFromDefinesAccessURL(ctx, cp), restartedAt });
  const { object } = await ctx.writer.apply(builtinResources.deployment, desired, live);
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

async function applyExposure(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<ExposureOutcome> {
  const ns = cp.metadata.namespace!;
  const name = cp.metadata.name!;
  const liveIngress = ctx.caches.ingresses.get(ns, name);
  const expose = cp.spec?.expose;
  if (expose?.ingress) {
    await ctx.writer.apply(builtinResources.ingress, buildIngress(cp), liveIngress);
  } else if (liveIngress && isControllerOwnedBy(liveIngress as V1Ingress, cp)) {
    await ctx.writer.delete(builtinResources.ingress, ns, name);
  }
  const routeServed = expose?.gateway || !expose ? await ctx.writer.served(builtinResources.httpRoute) : false;
  if (expose?.gateway) {
    if (!routeServed) {
      return {
        exposed: {
          type: Exposed.type,
          status: 'False',
          reason: Exposed.reasons.GatewayAPINotInstalled,
          message:
            'spec.expose.gateway is set, but the API server does not serve HTTPRoute (gateway.networking.k8s.io/v1); install the Gateway API CRDs. Retrying every 2 minutes.',
        },
        requeueAfterMs: exposureRetryMs,
      };
    }
    const route = buildHTTPRoute(cp);
    await ctx.writer.apply(builtinResources.httpRoute, route, await liveHTTPRoute(ctx, ns, name));
    return {
      exposed: { type: Exposed.type, status: 'True', reason: Exposed.reasons.HTTPRouteApplied, message: `HTTPRoute "${name}" is applied.` },
      requeueAfterMs: exposureRetryMs,
    };
  }
  if (routeServed) {
    const route = await liveHTTPRoute(ctx, ns, name);
    if (route && isControllerOwnedBy(route, cp)) await ctx.writer.delete(builtinResources.httpRoute, ns, name);
  }
  if (expose?.ingress) {
    return {
      exposed: { type: Exposed.type, status: 'True', reason: Exposed.reasons.IngressApplied, message: `Ingress "${name}" is applied.` },
    };
  }
  return {};
}

/** HTTPRoutes are read live: their CRD may be installed after the operator started. */
function liveHTTPRoute(ctx: ControlPlaneContext, ns: string, name: string) {
  return ctx.writer.get<HTTPRoute>(builtinResources.httpRoute, ns, name);
}
