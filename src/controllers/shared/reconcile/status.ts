// The next status of an object from the merged outcomes of one reconcile (pure): the steps' fields over the
// current status, observedGeneration, and the conditions with each change applied (metav1.Condition rules),
// then Ready and Stalled decided from them. Written only when it differs from what the object has.
import { removeCondition, setCondition, type Condition } from '../../../runtime/conditions.ts';
import type { AnyConditionChanges, Outcomes } from './outcome.ts';
import { readinessChanges, type ReadyRule } from './readiness.ts';

interface WithStatus {
  metadata: { generation?: number };
  status?: { conditions?: unknown };
}

/**
 * `obj`'s conditions with each change applied; a type mapped to undefined is removed. With a ready rule,
 * Ready (and Stalled) are then decided from the result, or from the stop a step gave its own reason
 * (`readyMessage`: a step's own words for Ready True).
 */
export function nextConditions(
  obj: WithStatus,
  changes: AnyConditionChanges,
  now: Date,
  readyRule?: ReadyRule,
  stop?: Outcomes<unknown, AnyConditionChanges>['stop'],
  readyMessage?: string,
): Condition[] {
  const apply = (conditions: Condition[], list: AnyConditionChanges) => {
    for (const [type, condition] of Object.entries(list)) {
      conditions = condition ? setCondition(conditions, condition, obj.metadata.generation, now) : removeCondition(conditions, type);
    }
    return conditions;
  };
  const conditions = apply([...((obj.status?.conditions ?? []) as Condition[])], changes);
  return readyRule
    ? apply(conditions, readinessChanges(conditions, readyRule, stop === true ? undefined : stop, readyMessage))
    : conditions;
}

/**
 * The status after the steps: their fields (unless a step asked that only conditions change: the rest of the
 * status keeps describing what runs), observedGeneration, and the conditions with Ready and Stalled.
 */
export function nextStatus<T extends WithStatus>(
  obj: T,
  out: Outcomes<NonNullable<T['status']>, AnyConditionChanges>,
  readyRule: ReadyRule,
  now: Date,
): NonNullable<T['status']> {
  return {
    ...obj.status,
    observedGeneration: obj.metadata.generation,
    ...(out.conditionsOnly ? {} : out.status),
    conditions: nextConditions(obj, out.conditions, now, readyRule, out.stop, out.readyMessage),
  } as NonNullable<T['status']>;
}
