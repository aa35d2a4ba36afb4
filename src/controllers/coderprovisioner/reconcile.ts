// The ordered steps of one CoderProvisioner reconcile (reference §2.5, with the seed's credential rule).
import { childRefusalMessage, reportRefusedChild } from '../shared/child-refused.ts';
import type { V1Secret } from '@kubernetes/client-node';
import { coderProvisionerResource } from '../../../generated/clients/coderprovisioner.ts';
import {
  CoderProvisionerConditions as C,
  type CoderProvisioner,
  type CoderProvisionerStatus,
} from '../../../generated/types/coderprovisioner.ts';
import { validateCoderProvisioner } from '../../../generated/validators/coderprovisioner.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { controlPlaneRetryMs, resolveControlPlane } from '../../controlplane/access.ts';
import { eventTarget, warnOnNewProblem } from '../shared/event-target.ts';
import { partitionSchemaErrors, reportInvalidSpec, schemaErrorsMessage, SpecError, specValidCondition } from '../shared/spec-check.ts';
import { mergeOutcomes, type StepOutcome } from '../shared/step-outcome.ts';
import { applyChildren, applyKeySecret, ownedDeployment, removeDeploymentReferencing } from './children.ts';
import type { ProvisionerContext } from './context.ts';
import { checkCredentialSecrets } from './credential-secrets.ts';
import { buildDeployment } from './desired/deployment.ts';
import { keyName, keySecretRef, maxKeyNameLength, namespaceOf } from './desired/names.ts';
import { checkEntitlement } from './entitlement.ts';
import { finalizeProvisioner, keyCleanupFinalizer } from './finalize.ts';
import { ensureProvisionerKey, keyCallNeeded } from './key-step.ts';
import { provisionerReadyRule } from './readiness.ts';
import { computeStatus } from './status.ts';

type Outcome = StepOutcome<CoderProvisionerStatus>;
const keyRetryMs = 30_000;
/** Someone else's key of that name goes only when a Coder admin deletes it, which no watch shows. */
const keyNameTakenRetryMs = 120_000;
/** The watch delivers a newer version within moments; looking again after this is a fallback. */
const staleCacheRetryMs = 2_000;

/** Whether the cached object is the API server's current version (one live read). */
async function isCurrent(ctx: ProvisionerContext, p: CoderProvisioner): Promise<boolean> {
  const live = await ctx.writer.get<CoderProvisioner>(coderProvisionerResource, p.metadata.namespace, p.metadata.name!);
  return live?.metadata.resourceVersion === p.metadata.resourceVersion;
}

export async function reconcileProvisioner(
  ctx: ProvisionerContext,
  request: Request,
  rc: ReconcileContext,
): Promise<ReconcileResult | void> {
  const cached = ctx.caches.provisioners.get(request.namespace, request.name);
  if (!cached) return;
  if (cached.metadata.deletionTimestamp) return finalizeProvisioner(ctx, cached, rc);
  // Goes on from the written version: the controller's event filter ignores its own finalizer write.
  const p = await ctx.writer.withFinalizer(
    coderProvisionerResource,
    ctx.writer.current(coderProvisionerResource, cached),
    keyCleanupFinalizer,
  );
  const { blocking, tolerated } = partitionSchemaErrors(validateCoderProvisioner(p));
  if (blocking.length) return invalid(ctx, p, schemaErrorsMessage('CoderProvisioner', blocking));
  const specProblem = checkSpec(p);
  if (specProblem) return invalid(ctx, p, specProblem.message);
  const specValid = await specValidCondition(
    ctx,
    p,
    C.SpecValid,
    'The provisioner key and every child object could be built from the spec.',
    tolerated,
  );
  try {
    return await reconcileValid(ctx, p, { [C.SpecValid.type]: specValid }, rc);
  } catch (err) {
    const refused = childRefusalMessage(err, coderProvisionerResource);
    if (refused) return reportRefusedChild(ctx, coderProvisionerResource, p, C.SpecValid, refused, provisionerReadyRule);
    if (!(err instanceof SpecError)) throw err;
    return invalid(ctx, p, err.message);
  }
}

/**
 * What the schema cannot say: the Go original accepted an empty controlPlaneRef.name, Coder limits key names to 64
 * characters, and extraEnv must not repeat a variable.
 */
function checkSpec(p: CoderProvisioner): SpecError | undefined {
  if (!p.spec?.controlPlaneRef?.name?.trim()) {
    return new SpecError(
      'spec.controlPlaneRef.name',
      'is required: name the CoderControlPlane in this namespace whose Coder the daemons serve',
    );
  }
  if (keyName(p).length > maxKeyNameLength) {
    return new SpecError('spec.key.name', `is longer than the ${maxKeyNameLength} characters Coder allows for a provisioner key name`);
  }
  // Before any key call: a spec whose Deployment cannot be built must not rotate the key first.
  try {
    buildDeployment(p, { coderURL: '', defaultImage: '', keyID: '' });
  } catch (err) {
    if (err instanceof SpecError) return err;
    throw err;
  }
  return undefined;
}

function invalid(ctx: ProvisionerContext, p: CoderProvisioner, message: string): Promise<void> {
  return reportInvalidSpec(ctx, coderProvisionerResource, p, C.SpecValid, message, provisionerReadyRule);
}

async function reconcileValid(
  ctx: ProvisionerContext,
  p: CoderProvisioner,
  specValid: Record<string, ConditionInput>,
  { signal, logger }: ReconcileContext,
): Promise<ReconcileResult | void> {
  const ns = namespaceOf(p);
  const cpName = p.spec!.controlPlaneRef.name!.trim();
  const access = resolveControlPlane(ctx, ctx.caches, ns, { name: cpName });
  if (!access.usable) {
    const problem: ConditionInput =
      access.reason === 'ControlPlaneUnavailable'
        ? {
            type: C.ControlPlaneReady.type,
            status: 'False',
            reason: C.ControlPlaneReady.reasons.ControlPlaneUnavailable,
            message: access.message,
          }
        : {
            type: C.OperatorAccessReady.type,
            status: 'False',
            reason: C.OperatorAccessReady.reasons.OperatorAccessNotReady,
            message: access.message,
          };
    // Without a control plane nothing can be said about its operator access.
    const conditions = {
      ...specValid,
      [C.ControlPlaneReady.type]: controlPlaneAvailable(cpName),
      [C.OperatorAccessReady.type]: undefined,
      [problem.type]: problem,
    };
    return finish(ctx, p, problem, 'ResolveControlPlane', { conditions, requeueAfterMs: controlPlaneRetryMs });
  }
  const { controlPlane: cp, client } = access;
  const reached: Record<string, ConditionInput> = {
    ...specValid,
    [C.ControlPlaneReady.type]: controlPlaneAvailable(cpName),
    [C.OperatorAccessReady.type]: {
      type: C.OperatorAccessReady.type,
      status: 'True',
      reason: C.OperatorAccessReady.reasons.OperatorAccessReady,
      message: `The operator token of CoderControlPlane "${cpName}" was read.`,
    },
  };

  const entitlement = await checkEntitlement(cp, client, signal);
  reached[C.ExternalProvisionersEntitled.type] = entitlement.condition;
  if (entitlement.condition.status !== 'True') {
    return finish(ctx, p, entitlement.condition, 'CheckEntitlement', { conditions: reached, requeueAfterMs: entitlement.requeueAfterMs });
  }

  // The credential rule comes before any key call: a key that may not be stored is not created.
  const ref = keySecretRef(p);
  const cachedKeySecret = ctx.caches.secrets.get(ns, ref.name);
  // An absent key Secret is created: look live first, in case the cache has not seen one made a moment ago.
  const liveKeySecret = cachedKeySecret ?? (await ctx.writer.get<V1Secret>(builtinResources.secret, ns, ref.name));
  const credentials = checkCredentialSecrets(p, (name) => (name === ref.name ? liveKeySecret : ctx.caches.secrets.get(ns, name)));
  reached[C.CredentialSecretReady.type] = credentials.condition;
  if (credentials.condition.status === 'False') {
    if (await removeDeploymentReferencing(ctx, p, credentials.refused)) {
      await ctx.events.record(
        eventTarget(p),
        'Warning',
        'DeploymentRemoved',
        'CheckCredentialSecrets',
        `The provisioner Deployment was deleted: its pods referenced a Secret this provisioner may not use.`,
      );
    }
    return finish(ctx, p, credentials.condition, 'CheckCredentialSecrets', { conditions: reached });
  }
  const keySecret = credentials.keySecret!;

  const secretKey = keySecret.kind === 'usable' ? keySecret.key : '';
  // A status the cache has not caught up with would rotate a key made a moment ago: only a current object decides.
  if (keyCallNeeded(p, cpName, secretKey) && !(await isCurrent(ctx, p))) return { requeueAfterMs: staleCacheRetryMs };
  const key = await ensureProvisionerKey(p, cp, client, secretKey, logger, signal);
  reached[C.ProvisionerKeyReady.type] = key.condition;
  if (!key.ok) {
    const requeueAfterMs = key.condition.reason === C.ProvisionerKeyReady.reasons.KeyNameTaken ? keyNameTakenRetryMs : keyRetryMs;
    return finish(ctx, p, key.condition, 'EnsureProvisionerKey', { conditions: reached, requeueAfterMs });
  }
  if (key.event) await ctx.events.record(eventTarget(p), 'Normal', key.event.reason, 'EnsureProvisionerKey', key.event.message);
  const keyFields: Partial<CoderProvisionerStatus> = { ...key.applied, secretRef: { name: ref.name, key: ref.key } };

  let children;
  try {
    // Only a new key is written: a cached Secret may be older than the one a previous reconcile wrote.
    if (key.created) await applyKeySecret(ctx, p, key.key, keySecret.kind === 'absent' || keySecret.created, liveKeySecret);
    children = await applyChildren(ctx, p, cp, key.applied.provisionerKeyID ?? '');
  } catch (err) {
    // Keep what Coder now holds, so the next attempt does not rotate the key again.
    if (key.event)
      await ctx.writer.writeStatus(
        coderProvisionerResource,
        p,
        computeStatus(p, ownedDeployment(ctx, p), { conditions: reached, status: keyFields }, ctx.now()),
      );
    throw err;
  }
  reached[C.ProvisionerKeySecretReady.type] = {
    type: C.ProvisionerKeySecretReady.type,
    status: 'True',
    reason: C.ProvisionerKeySecretReady.reasons.SecretReady,
    message: `Secret "${ref.name}" holds the provisioner key at key "${ref.key}".`,
  };
  reached[C.DeploymentReady.type] = children.condition;
  await warnOnNewProblem(
    ctx.events,
    p,
    children.condition.reason === C.DeploymentReady.reasons.ObjectNotOwned ? children.condition : undefined,
    'ApplyChildren',
  );
  const outcome = mergeOutcomes<CoderProvisionerStatus>({ conditions: reached, status: keyFields });
  await ctx.writer.writeStatus(
    coderProvisionerResource,
    p,
    computeStatus(p, children.deployment ?? ownedDeployment(ctx, p), outcome, ctx.now()),
  );
}

function controlPlaneAvailable(name: string): ConditionInput {
  return {
    type: C.ControlPlaneReady.type,
    status: 'True',
    reason: C.ControlPlaneReady.reasons.ControlPlaneAvailable,
    message: `CoderControlPlane "${name}" exists and has a URL.`,
  };
}

/** An early end: the problem's Warning Event (when new), then the status with what is known. */
async function finish(
  ctx: ProvisionerContext,
  p: CoderProvisioner,
  problem: ConditionInput | undefined,
  action: string,
  outcome: Outcome,
): Promise<ReconcileResult | void> {
  await warnOnNewProblem(ctx.events, p, problem, action);
  const deployment = ownedDeployment(ctx, p);
  await ctx.writer.writeStatus(coderProvisionerResource, p, computeStatus(p, deployment, outcome, ctx.now()));
  return outcome.requeueAfterMs ? { requeueAfterMs: outcome.requeueAfterMs } : undefined;
}
