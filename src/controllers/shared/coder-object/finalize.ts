// Deletion of an object a kind keeps in a control plane's Coder (the AI kinds): what it created in Coder
// goes too unless spec.deletionPolicy is Orphan, then the finalizer is removed. While Coder cannot be called
// or refuses, Ready says Deleting (and Synced why) and the finalizer stays. A control plane that is gone or
// being deleted takes its Coder with it: nothing is left to call, and waiting would hold the object forever.
import { CoderObjectReadyCondition as Ready } from '../../../../generated/types/conditions.ts';
import type { CoderClient } from '../../../coder/client.ts';
import { isCoderNotFound } from '../../../coder/error-predicates.ts';
import { controlPlaneRetryMs, resolveControlPlane } from '../../../controlplane/access.ts';
import type { ReconcileResult } from '../../../runtime/controller.ts';
import type { ResourceKind } from '../../../runtime/resource.ts';
import { syncFailure, type SyncFailure } from './coder-sync-failure.ts';
import { eventTarget } from '../event-target.ts';
import { Outcomes, type ChangeOf } from '../reconcile/outcome.ts';
import { nextStatus } from '../reconcile/status.ts';
import type { CoderObject, CoderObjectContext } from './context.ts';
import { availableRule } from './kind.ts';
import { stopWith, type ReadyWith } from './step-outcomes.ts';
import { coderObjectFinalizer } from '../finalizers.ts';

const R = Ready;
// Ready says Deleting itself (the stop), whatever a kind's Available message is.
const deletingRule = availableRule('');

export interface CoderObjectDeletion {
  resource: ResourceKind;
  /** The Coder ids of what the object created or adopted; none means nothing to delete. */
  ids: readonly string[];
  /** For messages, for example `the provider "openai"`. */
  what: string;
  /** The Event action (DeleteAIProvider) and the reason of the Event once deleted (ProviderDeleted). */
  action: string;
  deletedReason: string;
  /** Deletes one id in Coder. */
  deleteInCoder(client: CoderClient, id: string, signal: AbortSignal): Promise<void>;
  /** Forgets what the controller keeps in memory for the object. */
  forget(): void;
}

export async function finalizeCoderObject<T extends CoderObject>(
  ctx: CoderObjectContext<T>,
  obj: T,
  deletion: CoderObjectDeletion,
  signal: AbortSignal,
): Promise<ReconcileResult | void> {
  if (!obj.metadata.finalizers?.includes(coderObjectFinalizer)) return;
  const done = async () => {
    deletion.forget();
    await ctx.writer.removeFinalizer(deletion.resource, obj, coderObjectFinalizer);
  };
  if (obj.spec.deletionPolicy === 'Orphan' || deletion.ids.length === 0) return done();
  const namespace = obj.metadata.namespace ?? '';
  const ref = obj.spec.controlPlaneRef;
  const cp = ctx.caches.controlPlanes.get(namespace, ref.name);
  if (!cp || cp.metadata.deletionTimestamp) {
    await ctx.events.record(
      eventTarget(obj),
      'Warning',
      'CoderObjectLeft',
      deletion.action,
      `CoderControlPlane "${namespace}/${ref.name}" is gone or being deleted; ${deletion.what} was not deleted in Coder.`,
    );
    return done();
  }
  const deleting = (message: string, synced?: SyncFailure['condition']) => {
    const out = new Outcomes<NonNullable<T['status']>, ChangeOf<SyncFailure['condition'] | ReadyWith<typeof R.reasons.Deleting>>>().add({
      conditions: synced ? { [synced.type]: synced } : {},
      stop: stopWith(R.reasons.Deleting, message, false),
    });
    return ctx.writer.writeStatus(deletion.resource, obj, nextStatus(obj, out, deletingRule, ctx.now()));
  };
  const access = resolveControlPlane(ctx, ctx.caches, namespace, ref, { ownerFor: deletion.resource.kind });
  if (!access.usable) {
    await deleting(`Waiting to delete ${deletion.what} in Coder: ${access.message}`);
    return { requeueAfterMs: controlPlaneRetryMs };
  }
  for (const id of new Set(deletion.ids)) {
    try {
      await deletion.deleteInCoder(access.client, id, signal);
    } catch (err) {
      signal.throwIfAborted();
      // One that is gone already counts as deleted.
      if (isCoderNotFound(err)) continue;
      const failure = syncFailure(`delete ${deletion.what}`, err);
      await deleting(failure.condition.message, failure.condition);
      throw err;
    }
  }
  await ctx.events.record(eventTarget(obj), 'Normal', deletion.deletedReason, deletion.action, `Deleted ${deletion.what} in Coder.`);
  return done();
}
