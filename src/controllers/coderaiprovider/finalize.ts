// Deletion of a CoderAIProvider: the provider in Coder goes too unless spec.deletionPolicy is Orphan; then
// the finalizer is removed. Only the provider this object created or adopted (status.coderID) is deleted.
import { coderAIProviderResource } from '../../../generated/clients/coderaiprovider.ts';
import { CoderAIProviderConditions as C, type CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import type { ReconcileResult } from '../../runtime/controller.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { syncFailure } from '../shared/coder-sync-failure.ts';
import { controlPlaneRetryMs, resolveControlPlane } from '../shared/control-plane-ref.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { ProviderContext } from './context.ts';
import { providerName } from './desired.ts';
import { computeStatus } from './status.ts';

export const providerFinalizer = 'coder.com/cleanup';

export async function finalizeProvider(ctx: ProviderContext, p: CoderAIProvider, signal: AbortSignal): Promise<ReconcileResult | void> {
  if (!p.metadata.finalizers?.includes(providerFinalizer)) return;
  const coderID = p.status?.coderID ?? ctx.createdIDs.get(p.metadata.uid ?? '');
  if (p.spec.deletionPolicy === 'Orphan' || !coderID) {
    ctx.createdIDs.delete(p.metadata.uid ?? '');
    await ctx.writer.removeFinalizer(coderAIProviderResource, p, providerFinalizer);
    return;
  }
  const namespace = p.metadata.namespace ?? '';
  const name = providerName(p);
  const cp = ctx.caches.controlPlanes.get(namespace, p.spec.controlPlaneRef.name);
  if (!cp || cp.metadata.deletionTimestamp) {
    // Its Coder goes with it: nothing is left to call, and waiting would hold this object forever.
    await ctx.events.record(
      eventTarget(p),
      'Warning',
      'CoderObjectLeft',
      'DeleteAIProvider',
      `CoderControlPlane "${namespace}/${p.spec.controlPlaneRef.name}" is gone or being deleted; the provider "${name}" was not deleted in Coder.`,
    );
    ctx.createdIDs.delete(p.metadata.uid ?? '');
    await ctx.writer.removeFinalizer(coderAIProviderResource, p, providerFinalizer);
    return;
  }
  const access = resolveControlPlane(ctx, ctx.caches, namespace, p.spec.controlPlaneRef);
  if (!access.usable) {
    await deleting(ctx, p, `Waiting to delete the provider "${name}" in Coder: ${access.message}`);
    return { requeueAfterMs: controlPlaneRetryMs };
  }
  try {
    await access.client.request('DELETE', '/api/v2/ai/providers/{aiProvider}', { params: { aiProvider: coderID }, signal });
  } catch (err) {
    signal.throwIfAborted();
    if (!isCoderNotFound(err)) {
      const failure = syncFailure(`delete the provider "${name}"`, err);
      await deleting(ctx, p, failure.condition.message, failure.condition);
      throw err;
    }
  }
  await ctx.events.record(eventTarget(p), 'Normal', 'ProviderDeleted', 'DeleteAIProvider', `Deleted the provider "${name}" in Coder.`);
  ctx.createdIDs.delete(p.metadata.uid ?? '');
  await ctx.writer.removeFinalizer(coderAIProviderResource, p, providerFinalizer);
}

async function deleting(ctx: ProviderContext, p: CoderAIProvider, message: string, synced?: ConditionInput) {
  const conditions = {
    [C.Ready.type]: { type: C.Ready.type, status: 'False' as const, reason: C.Ready.reasons.Deleting, message },
    ...(synced ? { [C.Synced.type]: synced } : {}),
  };
  await ctx.writer.writeStatus(coderAIProviderResource, p, computeStatus(p, { conditions, status: {} }, ctx.now()));
}
