// The next status of a provisioner from the merged outcomes of one reconcile (pure); written only if it differs.
import type { V1Deployment } from '@kubernetes/client-node';
import {
  CoderProvisionerConditions as C,
  type CoderProvisioner,
  type CoderProvisionerStatus,
} from '../../../generated/types/coderprovisioner.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { nextConditions, type StepOutcome } from '../shared/step-outcome.ts';

export function readyReplicas(deployment: V1Deployment | undefined): number {
  return deployment?.status?.readyReplicas ?? 0;
}

export function deploymentReadyCondition(deployment: V1Deployment | undefined): ConditionInput {
  const ready = readyReplicas(deployment);
  const name = deployment?.metadata?.name ?? '';
  return ready > 0
    ? {
        type: C.DeploymentReady.type,
        status: 'True',
        reason: C.DeploymentReady.reasons.MinimumReplicasReady,
        message: `Deployment "${name}" has ${ready} ready provisioner pod(s).`,
      }
    : {
        type: C.DeploymentReady.type,
        status: 'False',
        reason: C.DeploymentReady.reasons.NoReplicasReady,
        message: deployment ? `Deployment "${name}" has no ready provisioner pod yet.` : 'The provisioner Deployment does not exist yet.',
      };
}

/** observedGeneration, readyReplicas and phase from the Deployment as the cache has it, then the steps' fields and conditions. */
export function computeStatus(
  p: CoderProvisioner,
  deployment: V1Deployment | undefined,
  outcome: StepOutcome<CoderProvisionerStatus>,
  now: Date,
): CoderProvisionerStatus {
  const ready = readyReplicas(deployment);
  return {
    ...p.status,
    observedGeneration: p.metadata.generation,
    readyReplicas: ready,
    phase: ready > 0 ? 'Ready' : 'Pending',
    ...outcome.status,
    conditions: nextConditions(p, outcome.conditions ?? {}, now) as CoderProvisionerStatus['conditions'],
  };
}
