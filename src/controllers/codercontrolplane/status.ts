// The next status of a control plane from the outcomes of one reconcile (pure); written only if it differs.
import type { V1Deployment } from '@kubernetes/client-node';
import type { CoderControlPlane, CoderControlPlaneStatus } from '../../../generated/types/codercontrolplane.ts';
import { removeCondition, setCondition, type Condition, type ConditionInput } from '../../runtime/conditions.ts';
import { statusURL } from './names.ts';

export function readyReplicas(deployment: V1Deployment | undefined): number {
  return deployment?.status?.readyReplicas ?? 0;
}

/** Sets each given condition and removes each type mapped to undefined. */
export function nextConditions(cp: CoderControlPlane, changes: Record<string, ConditionInput | undefined>, now: Date): Condition[] {
  let conditions = (cp.status?.conditions ?? []) as Condition[];
  for (const [type, condition] of Object.entries(changes)) {
    conditions = condition ? setCondition(conditions, condition, cp.metadata.generation, now) : removeCondition(conditions, type);
  }
  return conditions;
}

export function computeStatus(cp: CoderControlPlane, parts: {
  deployment: V1Deployment;
  conditions: Condition[];
  fields: Partial<CoderControlPlaneStatus>;
}): CoderControlPlaneStatus {
  const ready = readyReplicas(parts.deployment);
  return {
    ...cp.status,
    observedGeneration: cp.metadata.generation,
    readyReplicas: ready,
    url: statusURL(cp),
    phase: ready > 0 ? 'Ready' : 'Pending',
    ...parts.fields,
    conditions: parts.conditions as CoderControlPlaneStatus['conditions'],
  };
}
