// The ordered steps of one CoderControlPlane reconcile.
import { childRefusalMessage, reportRefusedChild } from '../shared/child-refused.ts';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import {
  CoderControlPlaneConditions as C,
  type CoderControlPlane,
  type CoderControlPlaneStatus,
} from '../../../generated/types/codercontrolplane.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { findCondition } from '../../runtime/conditions.ts';
import { isNamespaceTerminatingError, isTerminating } from '../../runtime/namespace-terminating.ts';
import { eventTarget, warnOnNewProblem } from '../shared/event-target.ts';
import { partitionSchemaErrors, reportInvalidSpec, schemaErrorsMessage, SpecError, specValidCondition } from '../shared/spec-check.ts';
import { mergeOutcomes, writeConditions, type StepOutcome } from '../shared/step-outcome.ts';
import { applyChildren, deleteUnwantedWorkspaceRbac } from './children.ts';
import type { ControlPlaneContext } from './context.ts';
import { conflictingConfigurationCondition, hasConflictingDatabaseConfig, resolveDatabaseSecret } from './database-secret.ts';
import { refreshEntitlements } from './entitlements.ts';
import { reconcileLicense } from './license.ts';
import { reconcileOperatorAccess } from './operator-access.ts';
import { computeStatus } from './status.ts';
import { readyReplicas } from '../shared/deployment-ready.ts';
import { controlPlaneReadyRule } from './readiness.ts';
import { workspaceNamespaces } from './desired/workspace-rbac.ts';

/** The schema validator (with the CEL environment, tens of MiB) loads with the first reconcile, not at start: an idle operator never needs it. */
const schemaValidator = () => import('../../../generated/validators/codercontrolplane.ts');

export const controlPlaneFinalizer = 'coder.com/workspace-rbac-cleanup';
const rbacDriftMs = 2 * 60_000;

export async function reconcileControlPlane(
  ctx: ControlPlaneContext,
  request: Request,
  rc: ReconcileContext,
): Promise<ReconcileResult | void> {
  const cached = ctx.caches.controlPlanes.get(request.namespace, request.name);
  if (!cached) return;
  // The cache may not show the status the previous reconcile wrote a moment ago.
  const cp = ctx.writer.withOwnStatus(coderControlPlaneResource, cached);
  if (cp.metadata.deletionTimestamp) return finalize(ctx, cp);
  // The namespace's deletion deletes the control plane too, which then only finalizes: until then,
  // every create there is refused, and what exists goes with the namespace.
  if (isTerminating(ctx.caches.namespaces.get(undefined, request.namespace))) {
    rc.logger.debug('the namespace is being deleted; nothing is created or changed in it');
    return;
  }
  try {
    return await reconcileLive(ctx, cp, rc);
  } catch (err) {
    if (!isNamespaceTerminatingError(err)) throw err;
    // The cache has not seen the deletion yet. Its own namespace's deletion deletes the control plane,
    // and a workspace namespace's update maps back to it: either reconciles again.
    rc.logger.debug({ err: (err as Error).message }, 'a namespace is being deleted; the reconcile ends here');
  }
}

/** The steps for a control plane that is not being deleted, in a namespace that is not either. */
async function reconcileLive(
  ctx: ControlPlaneContext,
  cached: CoderControlPlane,
  { signal }: ReconcileContext,
): Promise<ReconcileResult | void> {
  // Goes on from the version the finalizer write returned: the controller's event filter ignores that
  // write, so stopping here would leave the control plane waiting for some other change.
  const cp = needsFinalizer(cached) ? await ctx.writer.withFinalizer(coderControlPlaneResource, cached, controlPlaneFinalizer) : cached;
  // The seed's ConflictingConfiguration comes before the schema check, which forbids it too.
  if (hasConflictingDatabaseConfig(cp)) return reportConflictingConfiguration(ctx, cp);
  const { blocking, tolerated } = partitionSchemaErrors((await schemaValidator()).validateCoderControlPlane(cp));
  if (blocking.length) {
    return reportInvalidSpec(
      ctx,
      coderControlPlaneResource,
      cp,
      C.SpecValid,
      schemaErrorsMessage('CoderControlPlane', blocking),
      controlPlaneReadyRule,
    );
  }

  let children;
  try {
    children = await applyChildren(ctx, cp);
  } catch (err) {
    const refused = childRefusalMessage(err, coderControlPlaneResource);
    if (refused) return reportRefusedChild(ctx, coderControlPlaneResource, cp, C.SpecValid, refused, controlPlaneReadyRule);
    if (!(err instanceof SpecError)) throw err;
    return reportInvalidSpec(ctx, coderControlPlaneResource, cp, C.SpecValid, err.message, controlPlaneReadyRule);
  }
  await warnOnNewProblem(ctx.events, cp, children.conditions?.[C.WorkspaceRBACReady.type], 'ApplyWorkspaceRBAC');
  await warnOnNewProblem(ctx.events, cp, children.conditions?.[C.ChildrenOwned.type], 'ApplyChildren');
  const ready = readyReplicas(children.deployment) > 0;
  const database = await resolveDatabase(ctx, cp);
  const access = await reconcileOperatorAccess(ctx, cp, database.url, signal);
  const client = access.token ? ctx.coderClient(cp, access.token) : undefined;
  const license = await reconcileLicense(ctx, cp, ready, client, signal);
  const entitlements = await refreshEntitlements(cp.status ?? {}, client, ready, ctx.now(), signal);
  // On shutdown the calls above end early; what they report then is not the control plane's state.
  signal.throwIfAborted();

  const specValid = await specValidCondition(ctx, cp, C.SpecValid, 'Every child object could be built from the spec.', tolerated);
  const outcome = mergeOutcomes<CoderControlPlaneStatus>(
    { conditions: { [C.SpecValid.type]: specValid } },
    children,
    database,
    access,
    license,
    entitlements,
    workspaceRbacDriftCheck(cp),
  );
  await ctx.writer.writeStatus(coderControlPlaneResource, cp, computeStatus(cp, children.deployment, outcome, ctx.now()));
  return { requeueAfterMs: outcome.requeueAfterMs };
}

/** DatabaseSecretResolved for spec.database (removed without it), with a Warning Event when the reason changes. */
async function resolveDatabase(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
): Promise<StepOutcome<CoderControlPlaneStatus> & { url?: string }> {
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
function workspaceRbacDriftCheck(cp: CoderControlPlane): StepOutcome<CoderControlPlaneStatus> {
  const elsewhere = cp.spec?.rbac?.workspacePerms !== false && workspaceNamespaces(cp).some((ns) => ns !== cp.metadata.namespace);
  return elsewhere ? { requeueAfterMs: rbacDriftMs } : {};
}

/** Nothing is applied; only the condition changes (the rest of the status keeps describing what runs). */
async function reportConflictingConfiguration(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<void> {
  const changes = { [C.DatabaseSecretResolved.type]: conflictingConfigurationCondition() };
  await writeConditions(ctx.writer, coderControlPlaneResource, cp, changes, ctx.now(), controlPlaneReadyRule);
}

/** Deletion: remove workspace RBAC in every namespace (owned children go by garbage collection), then the finalizer. */
async function finalize(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<void> {
  if (!cp.metadata.finalizers?.includes(controlPlaneFinalizer)) return;
  await deleteUnwantedWorkspaceRbac(ctx, cp, new Set());
  await ctx.writer.removeFinalizer(coderControlPlaneResource, cp, controlPlaneFinalizer);
}
