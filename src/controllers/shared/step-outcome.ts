// What one step of a reconcile decides, and how the steps' decisions combine: the conditions it sets
// (undefined removes a type), the status fields it owns, and when it wants to look again.
import type { ReconcileResult } from '../../runtime/controller.ts';
import { removeCondition, setCondition, type Condition, type ConditionInput } from '../../runtime/conditions.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import type { ResourceKind } from '../../runtime/resource.ts';
import type { Writer } from '../../runtime/writer.ts';

export interface StepOutcome<Status> {
  conditions?: Record<string, ConditionInput | undefined>;
  status?: Partial<Status>;
  requeueAfterMs?: number;
}

/** The outcomes of several steps as one: later steps win on the same condition type or status field. */
export function mergeOutcomes<Status>(
  ...outcomes: StepOutcome<Status>[]
): Required<Pick<StepOutcome<Status>, 'conditions' | 'status'>> & ReconcileResult {
  const merged = { conditions: {}, status: {} } as Required<Pick<StepOutcome<Status>, 'conditions' | 'status'>> & ReconcileResult;
  for (const outcome of outcomes) {
    Object.assign(merged.conditions, outcome.conditions);
    Object.assign(merged.status, outcome.status);
  }
  return { ...merged, ...soonest(...outcomes.map((o) => o.requeueAfterMs)) };
}

/** The earliest positive delay as a reconcile result, or nothing when no step asked to look again. */
function soonest(...delays: (number | undefined)[]): ReconcileResult | undefined {
  const positive = delays.filter((d): d is number => d !== undefined && d > 0);
  return positive.length ? { requeueAfterMs: Math.min(...positive) } : undefined;
}

/** `obj`'s conditions with each change applied (metav1.Condition rules); a type mapped to undefined is removed. */
export function nextConditions(
  obj: { metadata: { generation?: number }; status?: { conditions?: unknown } },
  changes: Record<string, ConditionInput | undefined>,
  now: Date,
): Condition[] {
  let conditions = (obj.status?.conditions ?? []) as Condition[];
  for (const [type, condition] of Object.entries(changes)) {
    conditions = condition ? setCondition(conditions, condition, obj.metadata.generation, now) : removeCondition(conditions, type);
  }
  return conditions;
}

/** Writes only these condition changes; the rest of the status keeps describing what runs. */
export async function writeConditions<T extends KubeObject & { metadata: { generation?: number }; status?: { conditions?: unknown } }>(
  writer: Writer,
  resource: ResourceKind,
  obj: T,
  changes: Record<string, ConditionInput | undefined>,
  now: Date,
): Promise<void> {
  await writer.writeStatus(resource, obj, { ...obj.status, conditions: nextConditions(obj, changes, now) } as T['status']);
}
