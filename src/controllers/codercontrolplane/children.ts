// The Kubernetes objects a control plane owns: ServiceAccount, workspace RBAC (also in other
// namespaces, where they consent), Deployment, Service, and Ingress or HTTPRoute. Applied only when they
// differ, and never over a same-named object the operator did not create for this control plane.
import type { V1Deployment, V1Ingress, V1Role, V1RoleBinding, V1Service, V1ServiceAccount } from '@kubernetes/client-node';
import {
  CoderControlPlaneConditions,
  type CoderControlPlane,
  type CoderControlPlaneStatus,
} from '../../../generated/types/codercontrolplane.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import { allOrFirstFailure } from '../../runtime/all-or-first-failure.ts';
import { builtinResources, type ResourceKind } from '../../runtime/resource.ts';
import { applyTarget } from '../shared/foreign-object.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { liveRestartedAt } from '../shared/pod-spec.ts';
import { soonestDelay, type StepOutcome } from '../shared/reconcile/outcome.ts';
import { accessUrlEnv } from './desired/env.ts';
import type { ControlPlaneContext } from './context.ts';
import { buildDeployment } from './desired/deployment.ts';
import { buildHTTPRoute, buildIngress, type HTTPRoute } from './desired/exposure.ts';
import { buildService } from './desired/service.ts';
import { buildServiceAccount } from './desired/service-account.ts';
import {
  buildWorkspaceRbac,
  isManagedWorkspaceRbac,
  workspaceRbacIdentityLabels,
  workspaceRbacKeepSet,
  type WorkspaceRbac,
} from './desired/workspace-rbac.ts';
import { workspaceNamespaceConsent } from './workspace-namespace-consent.ts';
import { describePermission, extraRulesAskingFor, permissionsNotHeld, type HeldPermission } from './rules-not-held.ts';

const exposureRetryMs = 2 * 60_000;
// Nothing tells the operator when an admin grants it more: the refused Role is tried again this often.
const rulesNotGrantableRetryMs = 60_000;
export const workspaceGrantableLabel = 'coder.com/aggregate-to-workspace-grantable';
const { Exposed, WorkspaceRBACReady, ChildrenOwned } = CoderControlPlaneConditions;

/**
 * Sets Exposed (removed when spec.expose is unset), WorkspaceRBACReady (removed when workspacePerms is
 * false) and ChildrenOwned; carries the Deployment as the cache has it (undefined when it is not ours).
 */
export interface ChildrenOutcome extends StepOutcome<CoderControlPlaneStatus> {
  deployment: V1Deployment | undefined;
}

interface ExposureOutcome {
  exposed?: ConditionInput;
  requeueAfterMs?: number;
}

/** Descriptions of the same-named objects that are not ours, collected while applying. */
type Foreign = string[];

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
async function desiredChildren(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<DesiredChildren> {
  const live = ctx.caches.deployments.get(cp.metadata.namespace, cp.metadata.name!);
  const restartedAt = live && isControllerOwnedBy(live, cp) ? liveRestartedAt(live) : undefined;
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
  const desired = await desiredChildren(ctx, cp);
  const foreign: Foreign = [];
  // The pods' ServiceAccount first (the API server refuses pods whose ServiceAccount does not exist), then
  // the rest at once: each step is a read and a write or two, and the reconcile waits for the slowest only.
  await applyServiceAccount(ctx, cp, desired.serviceAccount, foreign);
  const [workspaceRbac, deployment, , { exposed, requeueAfterMs }] = await allOrFirstFailure([
    applyWorkspaceRbac(ctx, cp, desired.workspaceRbac),
    applyDeployment(ctx, cp, desired.deployment, foreign),
    applyOwned(
      ctx,
      cp,
      builtinResources.service,
      desired.service,
      ctx.caches.services.get(cp.metadata.namespace, cp.metadata.name!),
      foreign,
    ),
    applyExposure(ctx, cp, desired, foreign),
  ]);
  return {
    deployment,
    conditions: {
      [Exposed.type]: exposed,
      [WorkspaceRBACReady.type]: workspaceRbac.condition,
      [ChildrenOwned.type]: childrenOwnedCondition(foreign),
    },
    requeueAfterMs: soonestDelay(requeueAfterMs, workspaceRbac.requeueAfterMs),
  };
}

function childrenOwnedCondition(foreign: Foreign): ConditionInput {
  if (!foreign.length) {
    return {
      type: ChildrenOwned.type,
      status: 'True',
      reason: ChildrenOwned.reasons.Owned,
      message: 'Every child object is managed by this control plane.',
    };
  }
  return {
    type: ChildrenOwned.type,
    status: 'False',
    reason: ChildrenOwned.reasons.ObjectNotOwned,
    message:
      `${foreign.toSorted().join(', ')} already exist${foreign.length === 1 ? 's' : ''} and ${foreign.length === 1 ? 'is' : 'are'} not controlled by this control plane; ` +
      'the operator leaves them untouched and never deletes them. Delete or rename them to let the operator create its own.',
  };
}

/** Applies `desired` unless a same-named object exists that this control plane does not control; returns the object, or undefined then. */
async function applyOwned<T extends KubeObject>(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  resource: ResourceKind,
  desired: T,
  cached: T | undefined,
  foreign: Foreign,
): Promise<T | undefined> {
  const target = await applyTarget(ctx.writer, resource, desired, cached, (live) => isControllerOwnedBy(live as V1Ingress, cp));
  if (target.foreign) {
    foreign.push(target.description);
    return undefined;
  }
  return (await ctx.writer.apply(resource, desired, target.live)).object;
}

async function applyServiceAccount(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  desired: V1ServiceAccount | undefined,
  foreign: Foreign,
): Promise<void> {
  if (desired) {
    const cached = ctx.caches.serviceAccounts.get(desired.metadata!.namespace, desired.metadata!.name!);
    await applyOwned(ctx, cp, builtinResources.serviceAccount, desired, cached, foreign);
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

/** A namespace whose workspace Role or RoleBinding the API server refused as an escalation. */
interface NotGrantable {
  namespace: string;
  missing: HeldPermission[];
}

/**
 * Applies the workspace Role and RoleBinding in each namespace that consents, and removes what this
 * control plane manages anywhere else (including a namespace that withdrew its consent). A Role or
 * RoleBinding of the same name that is not ours is left alone, and so is the other half of that pair.
 * A pair the API server refuses as an escalation is kept as it was: workspaces may be running on it.
 */
async function applyWorkspaceRbac(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  desired: WorkspaceRbac[],
): Promise<{ condition?: ConditionInput; requeueAfterMs?: number }> {
  if (cp.spec?.rbac?.workspacePerms === false) {
    await deleteUnwantedWorkspaceRbac(ctx, cp, new Set());
    return {};
  }
  const notOptedIn: string[] = [];
  const foreign: Foreign = [];
  const notGrantable: NotGrantable[] = [];
  const applied = [];
  const refused = [];
  const ours = (live: V1Role | V1RoleBinding) => isManagedWorkspaceRbac(cp, live, new Set());
  for (const rbac of desired) {
    const consent = workspaceNamespaceConsent(cp, rbac.namespace, ctx.caches.namespaces.get(undefined, rbac.namespace));
    if (!consent.consented) {
      notOptedIn.push(consent.message);
      continue;
    }
    const { role, roleBinding } = rbac;
    const [roleTarget, bindingTarget] = await allOrFirstFailure([
      applyTarget(ctx.writer, builtinResources.role, role, ctx.caches.roles.get(rbac.namespace, role.metadata!.name!), ours),
      applyTarget(
        ctx.writer,
        builtinResources.roleBinding,
        roleBinding,
        ctx.caches.roleBindings.get(rbac.namespace, roleBinding.metadata!.name!),
        ours,
      ),
    ]);
    if (roleTarget.foreign || bindingTarget.foreign) {
      for (const t of [roleTarget, bindingTarget]) if (t.foreign) foreign.push(t.description);
      continue;
    }
    try {
      // The Role first: binding a Role that does not exist yet is refused as an escalation.
      await ctx.writer.apply(builtinResources.role, role, roleTarget.live);
      await ctx.writer.apply(builtinResources.roleBinding, roleBinding, bindingTarget.live);
      applied.push(rbac);
    } catch (err) {
      const missing = permissionsNotHeld(err);
      if (!missing) throw err;
      notGrantable.push({ namespace: rbac.namespace, missing });
      refused.push(rbac);
    }
  }
  await deleteUnwantedWorkspaceRbac(ctx, cp, workspaceRbacKeepSet([...applied, ...refused]));
  return {
    condition: workspaceRbacCondition(
      cp,
      applied.map((r) => r.namespace),
      notOptedIn,
      foreign,
      notGrantable,
    ),
    ...(notGrantable.length ? { requeueAfterMs: rulesNotGrantableRetryMs } : {}),
  };
}

function notGrantableMessage(cp: CoderControlPlane, notGrantable: NotGrantable[]): string {
  const namespaces = notGrantable.map((n) => `"${n.namespace}"`).join(', ');
  const missing = uniquePermissions(notGrantable.flatMap((n) => n.missing));
  const entries = extraRulesAskingFor(cp.spec?.rbac?.extraRules ?? [], missing).map((i) => `spec.rbac.extraRules[${i}]`);
  const askedBy = entries.length ? `, which ${entries.join(', ')} ask${entries.length === 1 ? 's' : ''} for` : '';
  return (
    `The API server refused the workspace Role in ${namespaces}: the operator does not hold ${missing.map(describePermission).join('; ')}${askedBy}, ` +
    'and Kubernetes lets it grant only permissions it holds itself. Grant them to the operator with a ClusterRole labelled ' +
    `${workspaceGrantableLabel}: "true"${entries.length ? ', or remove them from spec.rbac.extraRules' : ''}. ` +
    'What was applied before stays in place. Retrying every minute.'
  );
}

function uniquePermissions(permissions: HeldPermission[]): HeldPermission[] {
  const byKey = new Map(permissions.map((p) => [JSON.stringify(p), p]));
  return [...byKey.values()];
}

function workspaceRbacCondition(
  cp: CoderControlPlane,
  applied: string[],
  notOptedIn: string[],
  foreign: Foreign,
  notGrantable: NotGrantable[],
): ConditionInput {
  const { reasons } = WorkspaceRBACReady;
  if (!notOptedIn.length && !foreign.length && !notGrantable.length) {
    const where = applied.map((ns) => `"${ns}"`).join(', ');
    return {
      type: WorkspaceRBACReady.type,
      status: 'True',
      reason: reasons.Applied,
      message: `The workspace Role and RoleBinding are applied in ${where}.`,
    };
  }
  const problems = [
    ...(notGrantable.length ? [notGrantableMessage(cp, notGrantable)] : []),
    ...notOptedIn.map((m) => `No workspace RBAC is created in ${m}.`),
    ...(foreign.length
      ? [`${foreign.join(', ')} already exist and were not created by the operator for this control plane; they are left untouched.`]
      : []),
  ];
  return {
    type: WorkspaceRBACReady.type,
    status: 'False',
    reason: notGrantable.length ? reasons.RulesNotGrantable : notOptedIn.length ? reasons.NamespaceNotOptedIn : reasons.ObjectNotOwned,
    message: problems.join(' '),
  };
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

async function applyDeployment(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  desired: V1Deployment,
  foreign: Foreign,
): Promise<V1Deployment | undefined> {
  const live = ctx.caches.deployments.get(cp.metadata.namespace, cp.metadata.name!);
  const object = await applyOwned(ctx, cp, builtinResources.deployment, desired, live, foreign);
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

async function applyExposure(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  desired: Pick<DesiredChildren, 'ingress' | 'httpRoute'>,
  foreign: Foreign,
): Promise<ExposureOutcome> {
  const ns = cp.metadata.namespace!;
  const name = cp.metadata.name!;
  const liveIngress = ctx.caches.ingresses.get(ns, name);
  const expose = cp.spec?.expose;
  let ingressApplied = false;
  if (desired.ingress) {
    ingressApplied = (await applyOwned(ctx, cp, builtinResources.ingress, desired.ingress, liveIngress, foreign)) !== undefined;
  } else if (liveIngress && isControllerOwnedBy(liveIngress as V1Ingress, cp)) {
    await ctx.writer.delete(builtinResources.ingress, ns, name);
  }
  const routeServed = expose?.gateway || !expose ? await ctx.writer.served(builtinResources.httpRoute) : false;
  if (desired.httpRoute) {
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
    const applied = await applyOwned(ctx, cp, builtinResources.httpRoute, desired.httpRoute, await liveHTTPRoute(ctx, ns, name), foreign);
    if (!applied) return {};
    return {
      exposed: { type: Exposed.type, status: 'True', reason: Exposed.reasons.HTTPRouteApplied, message: `HTTPRoute "${name}" is applied.` },
      requeueAfterMs: exposureRetryMs,
    };
  }
  if (routeServed) {
    const route = await liveHTTPRoute(ctx, ns, name);
    if (route && isControllerOwnedBy(route, cp)) await ctx.writer.delete(builtinResources.httpRoute, ns, name);
  }
  if (ingressApplied) {
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
