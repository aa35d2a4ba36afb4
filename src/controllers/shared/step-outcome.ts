// What one step of a reconcile decides, and how the steps' decisions combine: the conditions it sets
// (undefined removes a type), the status fields it owns, and when it wants to look again.
import type { ReconcileResult } from '../../runtime/controller.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import type { ResourceKind } from '../../runtime/resource.ts';
import type { Writer } from '../../runtime/writer.ts';
import { soonestDelay } from './reconcile/outcome.ts';
import type { ReadyRule } from './reconcile/readiness.ts';
import { nextConditions } from './reconcile/status.ts';

export { nextConditions, soonestDelay };

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
  const delay = soonestDelay(...delays);
  return delay === undefined ? undefined : { requeueAfterMs: delay };
}

/**
 * Writes only these condition changes, and observedGeneration (the conditions describe this spec);
 * the rest of the status keeps describing what runs.
 */
export async function writeConditions<T extends KubeObject & { metadata: { generation?: number }; status?: { conditions?: unknown } }>(
  writer: Writer,
  resource: ResourceKind,
  obj: T,
  changes: Record<string, ConditionInput | undefined>,
  now: Date,
  readyRule?: ReadyRule,
): Promise<void> {
  const status = { ...obj.status, observedGeneration: obj.metadata.generation, conditions: nextConditions(obj, changes, now, readyRule) };
  await writer.writeStatus(resource, obj, status as T['status']);
}
