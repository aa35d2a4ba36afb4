// The ordered steps of one reconcile of a kind that keeps an object in a control plane's Coder (the AI
// kinds): deletion, the finalizer, the spec check, one pass against Coder, Events for new problems, and the
// status, written only when it changed. Ready names the first problem the pass met, or Available.
import { CoderAIProviderConditions } from '../../../generated/types/coderaiprovider.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import type { ResourceKind } from '../../runtime/resource.ts';
import type { CoderObject, CoderObjectContext } from './coder-object-context.ts';
import type { Blocker, CoderObjectPass } from './coder-object-pass.ts';
import { warnOnNewProblem } from './event-target.ts';
import { nextConditions } from './step-outcome.ts';

// The AI kinds declare Ready and Stalled with these reasons.
const R = CoderAIProviderConditions.Ready;
const stalledType = CoderAIProviderConditions.Stalled.type;

export interface CoderObjectKind<T extends CoderObject> {
  resource: ResourceKind;
  finalizer: string;
  /** A message naming the field when the spec cannot be acted on (Ready False InvalidSpec). */
  specProblem(obj: T): string | undefined;
  finalize(obj: T, signal: AbortSignal): Promise<ReconcileResult | void>;
  sync(obj: T, signal: AbortSignal): Promise<CoderObjectPass<NonNullable<T['status']>>>;
  /** The conditions whose turn to False a person should see as a Warning Event. */
  warnedConditions: readonly string[];
  /** The Event action of a pass, for example SyncAIProvider. */
  syncAction: string;
  /** Ready's message when nothing blocks. */
  availableMessage: string;
}

export async function reconcileCoderObject<T extends CoderObject>(
  ctx: CoderObjectContext<T>,
  kind: CoderObjectKind<T>,
  request: Request,
  rc: ReconcileContext,
): Promise<ReconcileResult | void> {
  const cached = ctx.caches.objects.get(request.namespace, request.name);
  if (!cached) return;
  if (cached.metadata.deletionTimestamp) return kind.finalize(cached, rc.signal);
  // The reconcile goes on from the status this operator last wrote (the cache may not show it yet: a pass
  // from the older status would undo it) and from the written version of the finalizer, whose write the
  // controller's event filter ignores.
  const obj = await ctx.writer.withFinalizer(kind.resource, ctx.writer.current(kind.resource, cached), kind.finalizer);

  const invalid = kind.specProblem(obj);
  if (invalid) {
    // Nothing is sent to Coder until the spec changes.
    const blocker = { reason: R.reasons.InvalidSpec, message: invalid, userMustAct: true };
    const summary = summaryConditions(blocker, kind.availableMessage);
    await warnOnNewProblem(ctx.events, obj, summary[R.type], 'ValidateSpec');
    await writeCoderObjectStatus(ctx, kind.resource, obj, summary, {});
    return;
  }

  const pass = await kind.sync(obj, rc.signal);
  rc.signal.throwIfAborted();
  for (const type of kind.warnedConditions) await warnOnNewProblem(ctx.events, obj, pass.conditions[type], kind.syncAction);
  const conditions = { ...pass.conditions, ...summaryConditions(pass.blocker, kind.availableMessage) };
  await writeCoderObjectStatus(ctx, kind.resource, obj, conditions, pass.status);
  if (pass.error) throw pass.error;
  return pass.requeueAfterMs ? { requeueAfterMs: pass.requeueAfterMs } : undefined;
}

/** Ready, and Stalled (True with Ready's reason and message while only the user can move the object on, else removed). */
export function summaryConditions(blocker: Blocker | undefined, availableMessage: string): Record<string, ConditionInput | undefined> {
  if (!blocker) {
    return { [R.type]: { type: R.type, status: 'True', reason: R.reasons.Available, message: availableMessage }, [stalledType]: undefined };
  }
  const ready: ConditionInput = { type: R.type, status: 'False', reason: blocker.reason, message: blocker.message };
  return { [R.type]: ready, [stalledType]: blocker.userMustAct ? { ...ready, type: stalledType, status: 'True' } : undefined };
}

/** The next status (the conditions changed, the fields given, observedGeneration), written only when it changed. */
export async function writeCoderObjectStatus<T extends CoderObject>(
  ctx: Pick<CoderObjectContext<T>, 'writer' | 'now'>,
  resource: ResourceKind,
  obj: T,
  conditions: Record<string, ConditionInput | undefined>,
  status: Partial<NonNullable<T['status']>>,
): Promise<void> {
  await ctx.writer.writeStatus(resource, obj, {
    ...obj.status,
    observedGeneration: obj.metadata.generation,
    ...status,
    conditions: nextConditions(obj as Parameters<typeof nextConditions>[0], conditions, ctx.now()),
  });
}
