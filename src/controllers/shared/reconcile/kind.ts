// The one shape of a reconcile, for every kind: read the object (from the cache, or as this operator last
// wrote it), finalize it when it is being deleted, put the kind's finalizer on it, run the kind's steps in
// order until one stops, tell a person about each problem that is new, then write the status (only when it
// changed; a new object's first status may wait a moment, first-status.ts) and throw a step's transient
// failure, so the queue backs off.
import type { ReconcileContext, ReconcileResult, Reconciler, Request } from '../../../runtime/controller.ts';
import type { Condition } from '../../../runtime/conditions.ts';
import type { EventRecorder } from '../../../runtime/events.ts';
import { isConflict, isNotFound } from '../../../runtime/kube-http.ts';
import type { KubeObject } from '../../../runtime/informer.ts';
import type { ResourceKind } from '../../../runtime/resource.ts';
import type { Writer } from '../../../runtime/writer.ts';
import { countCredentialRefusal } from '../credential-refusals.ts';
import { warnOnNewProblem } from '../event-target.ts';
import type { OperatorMetrics } from '../metrics.ts';
import type { FirstStatusHold } from './first-status.ts';
import { Outcomes, soonestDelay, type AnyConditionChanges, type ReadyReasonOf, type StepOutcome } from './outcome.ts';
import type { ReadyRuleOf } from './readiness.ts';
import { nextStatus } from './status.ts';

export interface ReconciledObject extends KubeObject {
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    finalizers?: string[];
    deletionTimestamp?: string | Date;
  };
  status?: { conditions?: readonly Condition[]; observedGeneration?: number };
}

/** What the skeleton needs of a kind's context. */
export interface KindDeps {
  writer: Writer;
  events: EventRecorder;
  now(): Date;
  metrics?: OperatorMetrics;
  /** Holds a new object's first status back while it only waits for the kind's `firstStatusWaitsFor`. */
  firstStatusHold?: FirstStatusHold;
}

export type StatusOf<T extends ReconciledObject> = NonNullable<T['status']>;

/**
 * A kind: its object `T`, its controller's context `Ctx`, its conditions `Changes` (its generated
 * <Kind>ConditionChanges), and what its steps' stops may give Ready (by default its reasons of Ready).
 */
export interface Kind<
  T extends ReconciledObject,
  Ctx extends KindDeps,
  Changes extends AnyConditionChanges,
  StopReason extends string = ReadyReasonOf<Changes>,
> {
  resource: ResourceKind;
  /** The object of `request` in the kind's cache. */
  cached(ctx: Ctx, request: Request): T | undefined;
  /** Ready and Stalled. */
  readyRule: ReadyRuleOf<Changes>;
  /** The object is being deleted: clean up what no owner reference reaches, then remove the finalizer. */
  finalize(ctx: Ctx, obj: T, rc: ReconcileContext): Promise<ReconcileResult | void>;
  /**
   * The finalizer a live object needs now, if any: put on before the steps run, and taken off (ending this
   * reconcile; the new version brings the next) when the object no longer needs it.
   */
  finalizer?(obj: T): { name: string; needed: boolean } | undefined;
  /** Whether nothing may be done now, not even a status write (the namespace is being deleted). */
  skip?(ctx: Ctx, obj: T, rc: ReconcileContext): boolean;
  /** The kind's steps, in order: each adds its outcome to `out`, and the list ends at the first that stops. */
  steps(ctx: Ctx, obj: T, out: Outcomes<StatusOf<T>, Changes, StopReason>, rc: ReconcileContext): Promise<void>;
  /**
   * What an error thrown by a step means when retrying cannot help (a spec no builder can use, a child the API
   * server refuses): an outcome to report, `'end'` to end the reconcile without a write, or undefined to throw it.
   */
  stepFailure?(ctx: Ctx, obj: T, err: unknown): Promise<StepOutcome<StatusOf<T>, Changes, StopReason> | 'end' | undefined>;
  /** The condition types whose turn to False a person should see as a Warning Event, with the Event's action. */
  warnings: { readonly [Type in keyof Changes]?: string };
  /**
   * The condition type a new object's first status may wait a moment for (first-status.ts), when the
   * context has a FirstStatusHold: a Deployment just created, for example, often has a ready pod a second later.
   */
  firstStatusWaitsFor?: Extract<keyof Changes, string>;
  /** Told of each status write, with the object as the steps read it and as written (for metrics). */
  statusWritten?(ctx: Ctx, before: T, written: T): void;
  /**
   * `'fail'`: the status is written only at the version the steps decided from, and a 409 (or 404) of the
   * finalizer or status write ends the reconcile quietly; by default a status write's 409 is retried on the
   * object read afresh (Writer.writeStatus).
   */
  statusConflicts?: 'retry' | 'fail';
}

/**
 * The reconciler of a kind whose steps `load` imports with the first request: the controller's wiring (caches,
 * watches, indexes) is set up at start, and the steps, with all they import (Coder calls, desired children,
 * status rules), load once an object of the kind is reconciled. An operator never given an object of a kind
 * never loads its steps, and start-up loads only the wiring.
 */
export function reconcilerLoadingKind<
  T extends ReconciledObject,
  Ctx extends KindDeps,
  Changes extends AnyConditionChanges,
  StopReason extends string,
>(ctx: Ctx, load: () => Promise<Kind<T, Ctx, Changes, StopReason>>): Reconciler {
  let kind: Promise<Kind<T, Ctx, Changes, StopReason>> | undefined;
  return async (request, rc) => reconcileKind(ctx, await (kind ??= load()), request, rc);
}

export async function reconcileKind<
  T extends ReconciledObject,
  Ctx extends KindDeps,
  Changes extends AnyConditionChanges,
  StopReason extends string,
>(ctx: Ctx, kind: Kind<T, Ctx, Changes, StopReason>, request: Request, rc: ReconcileContext): Promise<ReconcileResult | void> {
  const cached = kind.cached(ctx, request);
  if (!cached) return;
  // The cache may not show what the previous reconcile wrote a moment ago: go on from that.
  let obj = ctx.writer.current(kind.resource, cached);
  if (obj.metadata.deletionTimestamp) return kind.finalize(ctx, obj, rc);
  if (kind.skip?.(ctx, obj, rc)) return;
  const finalizer = kind.finalizer?.(obj);
  try {
    if (finalizer?.needed) obj = await ctx.writer.withFinalizer(kind.resource, obj, finalizer.name);
    else if (finalizer && (await ctx.writer.removeFinalizer(kind.resource, obj, finalizer.name))) return;
  } catch (err) {
    if (!changedSinceRead(kind, err)) throw err;
    return endQuietly(rc, err);
  }

  const out = new Outcomes<StatusOf<T>, Changes, StopReason>();
  try {
    await kind.steps(ctx, obj, out, rc);
  } catch (err) {
    const failure = await kind.stepFailure?.(ctx, obj, err);
    if (failure === 'end') return;
    if (!failure) throw err;
    out.add({ ...failure, stop: failure.stop ?? true });
  }
  // On shutdown the calls end early; what they report then is not the object's state (unless a step made
  // something that only the status records: the calls of such a kind throw when they end early).
  if (!out.durable) rc.signal.throwIfAborted();
  for (const type in kind.warnings) {
    const action = kind.warnings[type];
    if (action) await warnOnNewProblem(ctx.events, obj, out.conditions[type], action);
  }
  const next = nextStatus(obj, out, kind.readyRule, ctx.now());
  const holdMs =
    kind.firstStatusWaitsFor && !out.error
      ? (ctx.firstStatusHold?.holdMs(obj.metadata.uid, obj.status?.conditions, next.conditions ?? [], kind.firstStatusWaitsFor) ?? 0)
      : 0;
  if (holdMs > 0) return { requeueAfterMs: soonestDelay(out.requeueAfterMs, holdMs)! };
  try {
    const { wrote, object } = await ctx.writer.writeStatus(kind.resource, obj, next, {
      onConflict: kind.statusConflicts,
    });
    if (wrote) {
      countCredentialRefusal(ctx.metrics, kind.resource.kind, obj, object);
      kind.statusWritten?.(ctx, obj, object);
    }
  } catch (err) {
    if (!changedSinceRead(kind, err)) throw err;
    return endQuietly(rc, err);
  }
  if (out.error) throw out.error;
  return out.result();
}

/** For a kind that writes only at the version it decided from: whether its own write met a newer version, or none. */
function changedSinceRead(kind: { statusConflicts?: 'retry' | 'fail' }, err: unknown): boolean {
  return kind.statusConflicts === 'fail' && (isConflict(err) || isNotFound(err));
}

/** Written (or deleted) since it was read: the newer version comes through the watch and is decided afresh. */
function endQuietly(rc: ReconcileContext, err: unknown): void {
  rc.logger.debug({ err: (err as Error).message }, 'the object changed meanwhile; deciding again from the newer version');
}
