// The ordered steps of one CoderControlPlane reconcile.
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { validateCoderControlPlane } from '../../../generated/validators/codercontrolplane.ts';
import { CoderControlPlaneConditions as C, type CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { findCondition } from '../../runtime/conditions.ts';
import { scrubSecrets } from '../../runtime/logger.ts';
import type { ValidationError } from '../../validation/error.ts';
import { addFinalizer, removeFinalizer, writeStatusIfChanged } from '../../runtime/object-writes.ts';
import { applyChildren, deleteUnwantedWorkspaceRbac } from './children.ts';
import { eventTarget, type ControlPlaneContext } from './context.ts';
import { conflictingConfigurationCondition, hasConflictingDatabaseConfig, resolveDatabaseSecret } from './database-secret.ts';
import { refreshEntitlements } from './entitlements.ts';
import { reconcileLicense } from './license.ts';
import { reconcileOperatorAccess } from './operator-access.ts';
import { SpecError } from './spec-error.ts';
import { computeStatus, nextConditions, readyReplicas } from './status.ts';
import { workspaceNamespaces } from './workspace-rbac.ts';

export const finalizer = 'coder.com/workspace-rbac-cleanup';
const rbacDriftMs = 2 * 60_000;

function soonest(...delays: (number | undefined)[]): ReconcileResult | undefined {
  const positive = delays.filter((d): d is number => d !== undefined && d > 0);
  return positive.length ? { requeueAfterMs: Math.min(...positive) } : undefined;
}

export async function reconcileControlPlane(ctx: ControlPlaneContext, { namespace, name }: Request,
  _rc: ReconcileContext): Promise<ReconcileResult | void> {
  const cp = ctx.caches.controlPlanes.get(namespace, name);
  if (!cp) return;
  if (cp.metadata.deletionTimestamp) return finalize(ctx, cp);
  // The write brings a newer version through the watch, which reconciles again.
  if (await addFinalizer(ctx.http, coderControlPlaneResource, cp, finalizer)) return;
  const now = ctx.now();

  if (hasConflictingDatabaseConfig(cp)) {
    // The seed's ConflictingConfiguration (checked before the schema, which forbids it too): nothing is
    // applied; only the condition changes (the rest of the status keeps describing what runs).
    const conditions = nextConditions(cp, { [C.DatabaseSecretResolved.type]: conflictingConfigurationCondition() }, now);
    await writeStatusIfChanged(ctx.http, coderControlPlaneResource, cp, { ...cp.status, conditions: conditions as never });
    return;
  }
  // An object stored under an older or unvalidated CRD may not match this version's schema: say so, act on nothing.
  const schemaErrors = validateCoderControlPlane(cp);
  if (schemaErrors.length) return reportInvalidSpec(ctx, cp, schemaErrorsMessage(schemaErrors));

  let children;
  try {
    children = await applyChildren(ctx, cp);
  } catch (err) {
    if (!(err instanceof SpecError)) throw err;
    return reportInvalidSpec(ctx, cp, err.message);
  }
  const ready = readyReplicas(children.deployment) > 0;

  const database = cp.spec?.database
    ? resolveDatabaseSecret(cp, ctx.caches.secrets.get(namespace, cp.spec.database.connectionSecretRef.name))
    : undefined;
  const previousDb = findCondition(cp.status?.conditions as never, C.DatabaseSecretResolved.type);
  if (database && database.condition.status === 'False' && previousDb?.reason !== database.condition.reason) {
    await ctx.events.record(eventTarget(cp), 'Warning', database.condition.reason, 'ResolveDatabaseSecret', database.condition.message);
  }

  const access = await reconcileOperatorAccess(ctx, cp, database?.url);
  const client = access.token ? ctx.coderClient(cp, access.token) : undefined;
  const license = await reconcileLicense(ctx, cp, ready, client);
  const entitlements = await refreshEntitlements(cp.status ?? {}, client, ready, now);

  const conditions = nextConditions(cp, {
    [C.SpecValid.type]: { type: C.SpecValid.type, status: 'True', reason: C.SpecValid.reasons.Valid, message: 'Every child object could be built from the spec.' },
    [C.Exposed.type]: children.exposed,
    [C.DatabaseSecretResolved.type]: database?.condition,
    [C.OperatorTokenSecretOwned.type]: access.ownership,
    [C.LicenseApplied.type]: license.condition,
  }, now);
  const status = computeStatus(cp, { deployment: children.deployment, conditions, fields: { ...access.status, ...license.status, ...entitlements.status } });
  await writeStatusIfChanged(ctx.http, coderControlPlaneResource, cp, status);

  const rbacElsewhere = cp.spec?.rbac?.workspacePerms !== false && workspaceNamespaces(cp).some((ns) => ns !== namespace);
  return soonest(children.requeueAfterMs, access.requeueAfterMs, license.requeueAfterMs, entitlements.requeueAfterMs,
    rbacElsewhere ? rbacDriftMs : undefined);
}

function schemaErrorsMessage(errors: ValidationError[]): string {
  const listed = errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; ');
  const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
  return scrubSecrets(`The object does not match the CoderControlPlane schema of this operator: ${listed}${more}.`);
}

/** SpecValid False with a message naming the field; nothing else changes until the spec is fixed. */
async function reportInvalidSpec(ctx: ControlPlaneContext, cp: CoderControlPlane, message: string): Promise<void> {
  await ctx.events.record(eventTarget(cp), 'Warning', C.SpecValid.reasons.InvalidSpec, 'ValidateSpec', message);
  const conditions = nextConditions(cp, { [C.SpecValid.type]: { type: C.SpecValid.type, status: 'False', reason: C.SpecValid.reasons.InvalidSpec, message } }, ctx.now());
  await writeStatusIfChanged(ctx.http, coderControlPlaneResource, cp, { ...cp.status, conditions: conditions as never });
}

/** Deletion: remove workspace RBAC in every namespace (owned children go by garbage collection), then the finalizer. */
async function finalize(ctx: ControlPlaneContext, cp: CoderControlPlane): Promise<void> {
  if (!cp.metadata.finalizers?.includes(finalizer)) return;
  await deleteUnwantedWorkspaceRbac(ctx, cp, new Set());
  await removeFinalizer(ctx.http, coderControlPlaneResource, cp, finalizer);
}
