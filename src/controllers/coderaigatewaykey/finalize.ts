// Deletion of a CoderAIGatewayKey: its keys in Coder (current and previous) are deleted unless
// spec.deletionPolicy is Orphan; Secrets the operator created for it go by garbage collection either way.
import { coderAIGatewayKeyResource } from '../../../generated/clients/coderaigatewaykey.ts';
import { CoderAIGatewayKeyConditions as C, type CoderAIGatewayKey } from '../../../generated/types/coderaigatewaykey.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { ReconcileResult } from '../../runtime/controller.ts';
import { syncFailure } from '../shared/coder-sync-failure.ts';
import { controlPlaneRetryMs, resolveControlPlane } from '../shared/control-plane-ref.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { GatewayKeyContext } from './context.ts';
import { computeStatus } from './status.ts';
import { deleteKey } from './sync.ts';

export const gatewayKeyFinalizer = 'coder.com/cleanup';

export async function finalizeGatewayKey(
  ctx: GatewayKeyContext,
  k: CoderAIGatewayKey,
  signal: AbortSignal,
): Promise<ReconcileResult | void> {
  if (!k.metadata.finalizers?.includes(gatewayKeyFinalizer)) return;
  const pending = ctx.pending.get(k.metadata.uid ?? '');
  const ids = [k.status?.coderID, k.status?.previousKey?.coderID, pending?.id].filter((id): id is string => !!id);
  if (k.spec.deletionPolicy === 'Orphan' || ids.length === 0) return done(ctx, k);
  const namespace = k.metadata.namespace ?? '';
  const cp = ctx.caches.controlPlanes.get(namespace, k.spec.controlPlaneRef.name);
  if (!cp || cp.metadata.deletionTimestamp) {
    await ctx.events.record(
      eventTarget(k),
      'Warning',
      'CoderObjectLeft',
      'DeleteAIGatewayKey',
      `CoderControlPlane "${namespace}/${k.spec.controlPlaneRef.name}" is gone or being deleted; the key "${k.status?.coderKeyName ?? ''}" was not deleted in Coder.`,
    );
    return done(ctx, k);
  }
  const access = resolveControlPlane(ctx, ctx.caches, namespace, k.spec.controlPlaneRef);
  if (!access.usable) {
    await deleting(ctx, k, `Waiting to delete the key in Coder: ${access.message}`);
    return { requeueAfterMs: controlPlaneRetryMs };
  }
  for (const id of new Set(ids)) {
    try {
      await deleteKey(access.client, id, signal);
    } catch (err) {
      signal.throwIfAborted();
      const failure = syncFailure('delete the AI Gateway key', err);
      await deleting(ctx, k, failure.condition.message, failure.condition);
      throw err;
    }
  }
  await ctx.events.record(
    eventTarget(k),
    'Normal',
    'KeyDeleted',
    'DeleteAIGatewayKey',
    `Deleted the AI Gateway key "${k.status?.coderKeyName ?? ''}" in Coder.`,
  );
  return done(ctx, k);
}

async function done(ctx: GatewayKeyContext, k: CoderAIGatewayKey): Promise<void> {
  ctx.pending.delete(k.metadata.uid ?? '');
  await ctx.writer.removeFinalizer(coderAIGatewayKeyResource, k, gatewayKeyFinalizer);
}

async function deleting(ctx: GatewayKeyContext, k: CoderAIGatewayKey, message: string, synced?: ConditionInput) {
  const conditions = {
    [C.Ready.type]: { type: C.Ready.type, status: 'False' as const, reason: C.Ready.reasons.Deleting, message },
    ...(synced ? { [C.Synced.type]: synced } : {}),
  };
  await ctx.writer.writeStatus(coderAIGatewayKeyResource, k, computeStatus(k, { conditions, status: {} }, ctx.now()));
}
