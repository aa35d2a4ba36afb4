// What one step of a reconcile decides, and how the steps' decisions add up: the conditions it sets
// (undefined removes a type), the status fields it owns, when it wants to look again, and whether the
// reconcile stops here. Later steps win on the same condition type or status field. Outcomes are typed by
// the conditions of the kind (its generated <Kind>ConditionChanges), so a step can set only a condition type
// the kind declares, with one of that type's reasons.
import type { ReconcileResult } from '../../../runtime/controller.ts';
import type { ConditionInput } from '../../../runtime/conditions.ts';

/** Condition changes by type, of no kind in particular; a type mapped to undefined is removed. */
export type AnyConditionChanges = Partial<Record<string, ConditionInput | undefined>>;

/** The change of the conditions `C` (one or more, each of its own type): each keyed by its type. */
export type ChangeOf<C extends ConditionInput> = { [Type in C['type']]?: Extract<C, { type: Type }> | undefined };

/** The changes of a step that sets no condition. */
export type NoConditionChanges = { readonly [type: string]: never };

/**
 * The reasons of Ready among `Changes`: what a step's stop may give Ready. A step that stops with a reason of its
 * own lists Ready among its changes; without it, the step can stop only with `true`.
 */
export type ReadyReasonOf<Changes extends AnyConditionChanges> = Changes extends unknown
  ? 'Ready' extends keyof Changes
    ? NonNullable<Changes['Ready']>['reason']
    : never
  : never;

/** Why a reconcile stopped, in Ready's words, for a blocker that no condition of the kind states by itself. */
export interface Stop<Reason extends string = string> {
  /** Ready's reason. */
  reason: Reason;
  /** Ready's message. */
  message: string;
  /** Whether only the user can move the object on (Stalled True), rather than time or a retry. */
  userMustAct: boolean;
}

/**
 * `Changes`: the conditions the step may set, usually its kind's <Kind>ConditionChanges; `StopReason`: what its stop
 * may give Ready, by default one of the reasons of Ready among `Changes`.
 */
export interface StepOutcome<Status, Changes extends AnyConditionChanges, StopReason extends string = ReadyReasonOf<Changes>> {
  conditions?: Changes;
  status?: Partial<Status>;
  requeueAfterMs?: number;
  /**
   * The steps after this one do not run. `true`: the conditions this step set say why, and Ready follows
   * the kind's rule; a Stop: Ready says its reason and message.
   */
  stop?: true | Stop<StopReason>;
  /** Ready's message when the kind's rule finds the object Ready, where this step says more than the rule's own. */
  readyMessage?: string;
  /** Only the conditions and observedGeneration are written: the rest of the status keeps describing what runs. */
  conditionsOnly?: boolean;
  /** A failure that may pass on its own: thrown once the status is written, so the queue backs off. */
  error?: Error;
  /**
   * The status fields record what a step made outside the cluster and cannot find again (a key Coder shows only
   * once): the status is written even when the operator is shutting down, which otherwise drops it.
   */
  durable?: boolean;
}

/** The outcomes of a reconcile's steps so far, merged; `Changes` and `StopReason` as the kind's StepOutcome has them. */
export class Outcomes<Status, Changes extends AnyConditionChanges, StopReason extends string = ReadyReasonOf<Changes>> {
  readonly conditions: Partial<Changes> = {};
  readonly status: Partial<Status> = {};
  requeueAfterMs: number | undefined;
  stop: true | Stop<StopReason> | undefined;
  readyMessage: string | undefined;
  conditionsOnly = false;
  error: Error | undefined;
  durable = false;

  /** Adds `outcome`; later steps win on the same condition type or status field, the soonest requeue wins. */
  add(outcome: StepOutcome<Status, Changes, StopReason>): this {
    Object.assign(this.conditions, outcome.conditions);
    Object.assign(this.status, outcome.status);
    this.requeueAfterMs = soonestDelay(this.requeueAfterMs, outcome.requeueAfterMs);
    if (outcome.stop) this.stop = outcome.stop;
    if (outcome.readyMessage !== undefined) this.readyMessage = outcome.readyMessage;
    if (outcome.conditionsOnly) this.conditionsOnly = true;
    if (outcome.error) this.error = outcome.error;
    if (outcome.durable) this.durable = true;
    return this;
  }

  /**
   * Adds `outcome` and tells whether it stops the reconcile: `if (out.stopsAt(step)) return;` — the steps after
   * it must not run. In the false branch `outcome` is narrowed to its variants without a stop.
   */
  stopsAt<O extends StepOutcome<Status, Changes, StopReason>>(outcome: O): outcome is Extract<O, { stop: true | Stop }> {
    this.add(outcome);
    return outcome.stop !== undefined;
  }

  /** `outcome` where no step decided: a condition type or status field a step set keeps the step's value. */
  underlay(outcome: StepOutcome<Status, Changes, StopReason>): this {
    fillUndecided(this.conditions, outcome.conditions ?? {});
    fillUndecided(this.status, outcome.status ?? {});
    return this;
  }

  /** What the controller does next: the soonest requeue any step asked for, or nothing. */
  result(): ReconcileResult | undefined {
    return this.requeueAfterMs === undefined ? undefined : { requeueAfterMs: this.requeueAfterMs };
  }
}

/**
 * What a step shared by several kinds adds its outcomes to: the Outcomes of any kind that declares every
 * condition `Changes` may set, with its reasons. Properties, not methods, so that a kind's Outcomes passed here is
 * checked to take them (a method's parameters would be compared both ways).
 */
export interface OutcomeSink<Status, Changes extends AnyConditionChanges> {
  add: (outcome: StepOutcome<Status, Changes>) => unknown;
  stopsAt: <O extends StepOutcome<Status, Changes>>(outcome: O) => outcome is Extract<O, { stop: true | Stop }>;
}

/** Sets in `target` each entry of `source` whose key `target` does not have yet. */
function fillUndecided<R extends object>(target: Partial<R>, source: Partial<R>): void {
  for (const key in source) if (!(key in target)) target[key] = source[key];
}

/** The earliest positive delay, or undefined when none is set. */
export function soonestDelay(...delays: (number | undefined)[]): number | undefined {
  const positive = delays.filter((d): d is number => d !== undefined && d > 0);
  return positive.length ? Math.min(...positive) : undefined;
}
