// The summary conditions that Kubernetes tooling reads (kubectl wait, kstatus in Flux and Argo CD), decided
// the same way for every kind: Ready names what a step stopped on, else the first of the kind's conditions
// that is not True, else the kind's ready reason; Stalled is True while only the user can move the object on;
// Reconciling, for a kind that reports it, is True while the object is neither Ready nor Stalled.
import type { Condition, ConditionInput } from '../../../runtime/conditions.ts';
import type { AnyConditionChanges, ReadyReasonOf, Stop } from './outcome.ts';

export const readyType = 'Ready';
export const stalledType = 'Stalled';
export const reconcilingType = 'Reconciling';

/** The ready rule of a kind whose conditions are `Changes`: its condition types, and its reasons of Ready. */
export type ReadyRuleOf<Changes extends AnyConditionChanges> = ReadyRule<Extract<keyof Changes, string>, ReadyReasonOf<Changes>>;

/** A condition that Ready waits for (one of the kind's `Type`s), and the reason Ready gives while it is not True. */
export interface ReadyRequirement<Type extends string = string, Reason extends string = string> {
  type: Type;
  reason: Reason;
  /** Counts only while the kind reports it (some conditions exist only in some configurations). */
  optional?: boolean;
  /** Ready's reason for some of the condition's own reasons, where one says more than `reason` does. */
  reasonsByCause?: Readonly<Record<string, Reason>>;
}

/** When a kind is Ready: `Type`, the kind's condition types; `Reason`, its reasons of Ready. */
export interface ReadyRule<Type extends string = string, Reason extends string = string> {
  /** In the order a blocking one is reported. */
  requirements: readonly ReadyRequirement<Type, Reason>[];
  /** Ready's reason and message once every requirement is True (a step's own readyMessage wins over this one). */
  readyReason: Reason;
  readyMessage: string;
  /**
   * Whether a condition that is not True waits for the user (a bad spec, a Secret to create or mark):
   * then Stalled is True too, which kstatus reports as Failed instead of InProgress. Without a rule
   * for it, the kind sets no Stalled condition.
   */
  userMustAct?(condition: Condition): boolean;
  /**
   * `'False'`: while nothing waits for the user, Stalled is written False with Ready's reason and message
   * instead of removed, and the kind sets Stalled even without a userMustAct rule.
   */
  stalledWhenClear?: 'False';
  /** Whether the kind sets Reconciling too: True with Ready's reason and message while neither Ready nor Stalled, else False. */
  reconciling?: boolean;
}

type ReadinessChanges = {
  [readyType]: ConditionInput;
  [reconcilingType]?: ConditionInput;
  [stalledType]?: ConditionInput | undefined;
};

/**
 * Ready and Stalled (and Reconciling) for `conditions`, or for the stop a step gave its own reason; `readyMessage`
 * is Ready's message when it is True, where a step says more than the rule. Stalled mapped to undefined removes it.
 */
export function readinessChanges(conditions: readonly Condition[], rule: ReadyRule, stop?: Stop, readyMessage?: string): ReadinessChanges {
  const { ready, userMustAct } = decideReady(conditions, rule, stop, readyMessage);
  const changes: ReadinessChanges = { [readyType]: ready };
  if (rule.reconciling) {
    changes[reconcilingType] = { ...ready, type: reconcilingType, status: ready.status !== 'True' && !userMustAct ? 'True' : 'False' };
  }
  if (!rule.userMustAct && !rule.stalledWhenClear) return changes;
  if (userMustAct) changes[stalledType] = { ...ready, type: stalledType, status: 'True' };
  else changes[stalledType] = rule.stalledWhenClear ? { ...ready, type: stalledType, status: 'False' } : undefined;
  return changes;
}

/** Ready, and whether what holds it back waits for the user. */
function decideReady(
  conditions: readonly Condition[],
  rule: ReadyRule,
  stop: Stop | undefined,
  readyMessage: string | undefined,
): { ready: ConditionInput; userMustAct: boolean } {
  if (stop) {
    return { ready: { type: readyType, status: 'False', reason: stop.reason, message: stop.message }, userMustAct: stop.userMustAct };
  }
  const byType = new Map(conditions.map((c) => [c.type, c]));
  for (const requirement of rule.requirements) {
    const condition = byType.get(requirement.type);
    if (!condition && requirement.optional) continue;
    if (condition?.status === 'True') continue;
    const message = condition
      ? `${condition.type} is ${condition.status} (${condition.reason}): ${condition.message}`
      : `Waiting for ${requirement.type} to be reported.`;
    const reason = (condition && requirement.reasonsByCause?.[condition.reason]) || requirement.reason;
    const userMustAct = condition !== undefined && (rule.userMustAct?.(condition) ?? false);
    return { ready: { type: readyType, status: 'False', reason, message }, userMustAct };
  }
  return {
    ready: { type: readyType, status: 'True', reason: rule.readyReason, message: readyMessage ?? rule.readyMessage },
    userMustAct: false,
  };
}

/** What usually needs the user: a spec the controller cannot act on, or a Secret it may not use. */
export function specOrCredentialProblem(condition: Condition): boolean {
  return condition.status === 'False' && (condition.type === 'SpecValid' || condition.type === 'CredentialSecretReady');
}
