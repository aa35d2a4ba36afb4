// The ordered steps of one CoderControlPlane reconcile, run by the shared skeleton (shared/reconcile/kind.ts).
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import {
  CoderControlPlaneConditions as C,
  type CoderControlPlane,
  type CoderControlPlaneConditionChanges,
  type CoderControlPlaneStatus,
} from '../../../generated/types/codercontrolplane.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { findCondition } from '../../runtime/conditions.ts';
import { isNamespaceTerminatingError, isTerminating } from '../../runtime/namespace-terminating.ts';
import { refusedSpec } from '../shared/child-refused.ts';
import { readyReplicas } from '../shared/workload/deployment-ready.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { Kind } from '../shared/reconcile/kind.ts';
import type { Outcomes } from '../shared/reconcile/outcome.ts';
import { checkSchema, specValidCondition } from '../shared/spec-check.ts';
import { applyChildren } from './children.ts';
import type { ControlPlaneContext } from './context.ts';
import { conflictingConfigurationCondition, hasConflictingDatabaseConfig, resolveDatabaseSecret } from './database-secret.ts';
import { workspaceNamespaces } from './desired/workspace-rbac.ts';
import { refreshEntitlements } from './entitlements.ts';
import { reconcileLicense } from './license.ts';
import { reconcileOperatorAccess } from './operator-access.ts';
import { controlPlaneReadyRule } from './readiness.ts';
import { controlPlaneWorkload, type ControlPlaneOutcome } from './status.ts';
import { deleteUnwantedWorkspaceRbac } from './workspace-rbac-apply.ts';
import { controlPlaneFinalizer } from '../shared/finalizers.ts';

type Out = Outcomes<CoderControlPlaneStatus, CoderControlPlaneConditionChanges>;

/** The schema validator (with the CEL environment, tens of MiB) loads with the first reconcile, not at start: an idle operator never needs it. */
const schemaValidator = () => import('../../../generated/validators/codercontrolplane.ts');

const rbacDriftMs = 2 * 60_000;

export const controlPlaneKind: Kind<CoderControlPlane, ControlPlaneContext, CoderControlPlaneConditionChanges> = {
  resource: coderControlPlaneResource,
  cached: (ctx, request) => ctx.caches.controlPlanes.get(request.namespace, request.name),
  readyRule: controlPlaneReadyRule,
  firstStatusWaitsFor: C.DeploymentReady.type,
  finalize,
  finalizer: (cp) => ({ name: controlPlaneFinalizer, needed: needsFinalizer(cp) }),
  // The namespace's deletion deletes the control plane too, which then only finalizes: until then, every
  // create there is refused, and what exists goes with the namespace.
  skip: (ctx, cp, rc) => {
    if (!isTerminating(ctx.caches.namespaces.get(undefined, cp.metadata.namespace!))) return false;
    rc.logger.debug('the namespace is being deleted; nothing is created or changed in it');
    return true;
  },
  steps,
  stepFailure: async (ctx, cp, err) => {
    // The cache has not seen a namespace's deletion yet. Its own namespace's deletion deletes the control
    // plane, and a workspace namespace's update maps back to it: either reconciles again.
    if (isNamespaceTerminatingError(err)) return 'end';
    return refusedSpec(ctx, coderControlPlaneResource, cp, err);
  },
  warnings: {
    [C.WorkspaceRBACReady.type]: 'ApplyWorkspaceRBAC',
    [C.ChildrenOwned.type]: 'ApplyChildren',
  },
};

async function steps(ctx: ControlPlaneContext, cp: CoderControlPlane, out: Out, { signal }: ReconcileContext): Promise<void> {
  // ConflictingConfiguration (both database settings given) comes before the schema check, which forbids it too.
  if (out.stopsAt(conflictingConfiguration(cp))) return;
  const schema = await checkSchema(ctx, cp, 'CoderControlPlane', (await schemaValidator()).validateCoderControlPlane(cp));
  if (out.stopsAt(schema)) return;

  const children = await applyChildren(ctx, cp);
  out.add(children);
  const ready = readyReplicas(children.deployment) > 0;
  const database = await resolveDatabase(ctx, cp);
  out.add(database);
  const access = await reconcileOperatorAccess(ctx, cp, database.url, signal);
  out.add(access);
  const client = access.token ? ctx.coderClient(cp, access.token) : undefined;
  out.add(await reconcileLicense(ctx, cp, ready, client, signal));
  out.add(await refreshEntitlements(cp.status ?? {}, client, ready, ctx.now(), signal));
  signal.throwIfAborted();
  const specValid = await specValidCondition(ctx, cp, 'Every child object could be built from the spec.', schema.tolerated);
  out.add({ conditions: { [C.SpecValid.type]: specValid } });
  out.add(workspaceRbacDriftCheck(cp));
  out.underlay(controlPlaneWorkload(cp, children.deployment));
}

/** ConflictingConfiguration, as the deploy guide words it: nothing is applied, only the condition changes. */
function conflictingConfiguration(cp: CoderControlPlane): ControlPlaneOutcome {
  if (!hasConflictingDatabaseConfig(cp)) return {};
  return { conditions: { [C.DatabaseSecretResolved.type]: conflictingConfigurationCondition() }, conditionsOnly: true, stop: true };
}

/** DatabaseSecretResolved for spec.database (removed without it), with a Warning Event when the reason changes. */
async function resolveDatabase(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<ControlPlaneOutcome & { url?: string }> {
  const ref = cp.spec?.database?.connectionSecretRef;
  if (!ref) return { conditions: { [C.DatabaseSecretResolved.type]: undefined } };
  const { condition, url } = resolveDatabaseSecret(cp, ctx.caches.secrets.get(cp.metadata.namespace, ref.name));
  const previous = findCondition(cp.status?.conditions, C.DatabaseSecretResolved.type);
  if (condition.status === 'False' && previous?.reason !== condition.reason) {
    await ctx.events.record(eventTarget(cp), 'Warning', condition.reason, 'ResolveDatabaseSecret', condition.message);
  }
  return { conditions: { [C.DatabaseSecretResolved.type]: condition }, url };
}

/**
 * The finalizer guards workspace RBAC in other namespaces, which no owner reference reaches. Without
 * any, garbage collection removes every child and the write is saved; once on, it stays until deletion.
 */
function needsFinalizer(cp: CoderControlPlane): boolean {
  if (cp.metadata.finalizers?.includes(controlPlaneFinalizer)) return true;
  const own = cp.metadata.namespace;
  const elsewhere = (cp.spec?.rbac?.workspaceNamespaces ?? []).some((ns) => ns.trim() !== '' && ns.trim() !== own);
  return cp.spec?.rbac?.workspacePerms !== false && elsewhere;
}

/** Workspace RBAC in other namespaces has no owner reference to bring its changes back: look again every 2 minutes. */
function workspaceRbacDriftCheck(cp: CoderControlPlane): ControlPlaneOutcome {
  const elsewhere = cp.spec?.rbac?.workspacePerms !== false && workspaceNamespaces(cp).some((ns) => ns !== cp.metadata.namespace);
  return elsewhere ? { requeueAfterMs: rbacDriftMs } : {};
}

/** Deletion: remove workspace RBAC in every namespace (owned children go by garbage collection), then the finalizer. */
async function finalize(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<void> {
  if (!cp.metadata.finalizers?.includes(controlPlaneFinalizer)) return;
  await deleteUnwantedWorkspaceRbac(ctx, cp, new Set());
  await ctx.writer.removeFinalizer(coderControlPlaneResource, cp, controlPlaneFinalizer);
}
