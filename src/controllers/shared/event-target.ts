// The object an Event is about, taken from the reconciled object itself, and when a condition calls for one.
import { findCondition, type Condition, type ConditionInput } from '../../runtime/conditions.ts';
import type { EventRecorder, EventTarget } from '../../runtime/events.ts';
import type { KubeObject } from '../../runtime/informer.ts';

export function eventTarget(obj: KubeObject): EventTarget {
  const { name, namespace, uid, resourceVersion } = obj.metadata ?? {};
  if (!obj.apiVersion || !obj.kind || !name || !uid) throw new Error('an Event needs an object with apiVersion, kind, name and uid');
  return { apiVersion: obj.apiVersion, kind: obj.kind, name, namespace: namespace ?? '', uid, resourceVersion };
}

/** A Warning Event when a condition turns False or its message changes while False (a person must act). */
export async function warnOnNewProblem(
  events: Pick<EventRecorder, 'record'>,
  obj: KubeObject & { status?: { conditions?: readonly Condition[] } },
  condition: ConditionInput | undefined,
  action: string,
): Promise<void> {
  if (condition?.status !== 'False') return;
  const previous = findCondition(obj.status?.conditions, condition.type);
  if (previous?.status === 'False' && previous.reason === condition.reason && previous.message === condition.message) return;
  await events.record(eventTarget(obj), 'Warning', condition.reason, action, condition.message);
}
