// The summary conditions that Kubernetes tooling reads (kubectl wait, kstatus in Flux and Argo CD), decided
// the same way for every kind: Ready names what a step stopped on, else the first of the kind's conditions
// that is not True, else the kind's ready reason; Stalled is True while only the user can move the object on.
import type { Condition, ConditionInput } from '../../../runtime/conditions.ts';
import type { Stop } from './outcome.ts';

export const readyType = 'Ready';
export const stalledType = 'Stalled';

/** A condition that Ready waits for, and the reason Ready gives while it is not True. */
export interface ReadyRequirement {
  type: string;
  reason: string;
  /** Counts only while the kind reports it (some conditions exist only in some configurations). */
  optional?: boolean;
  /** Ready's reason for some of the condition's own reasons, where one says more than `reason` does. */
  reasonsByCause?: Readonly<Record<string, string>>;
}

export interface ReadyRule {
  /** In the order a blocking one is reported. */
  requirements: readonly ReadyRequirement[];
  /** Ready's reason and message once every requirement is True. */
  readyReason: string;
  readyMessage: string;
  /**
   * Whether a condition that is not True waits for the user (a bad spec, a Secret to create or mark):
   * then Stalled is True too, which kstatus reports as Failed instead of InProgress. Without a rule
   * for it, the kind sets no Stalled condition.
   */
  userMustAct?(condition: Condition): boolean;
}

/** Ready and Stalled for `conditions`, or for the stop a step gave its own reason (Stalled mapped to undefined removes it). */
export function readinessChanges(
  conditions: readonly Condition[],
  rule: ReadyRule,
  stop?: Stop,
): { [readyType]: ConditionInput; [stalledType]?: ConditionInput | undefined } {
  if (stop) {
    const ready: ConditionInput = { type: readyType, status: 'False', reason: stop.reason, message: stop.message };
    if (!rule.userMustAct) return { [readyType]: ready };
    return { [readyType]: ready, [stalledType]: stop.userMustAct ? { ...ready, type: stalledType, status: 'True' } : undefined };
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
    const ready: ConditionInput = { type: readyType, status: 'False', reason, message };
    if (!rule.userMustAct) return { [readyType]: ready };
    const stalled = condition !== undefined && rule.userMustAct(condition);
    return { [readyType]: ready, [stalledType]: stalled ? { ...ready, type: stalledType, status: 'True' } : undefined };
  }
  const ready: ConditionInput = { type: readyType, status: 'True', reason: rule.readyReason, message: rule.readyMessage };
  return rule.userMustAct ? { [readyType]: ready, [stalledType]: undefined } : { [readyType]: ready };
}

/** What usually needs the user: a spec the controller cannot act on, or a Secret it may not use. */
export function specOrCredentialProblem(condition: Condition): boolean {
  return condition.status === 'False' && (condition.type === 'SpecValid' || condition.type === 'CredentialSecretReady');
}
