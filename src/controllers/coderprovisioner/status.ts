// The next status of a provisioner from the merged outcomes of one reconcile (pure); written only if it differs.
import type { V1Deployment } from '@kubernetes/client-node';
import {
  CoderProvisionerConditions as C,
  type CoderProvisioner,
  type CoderProvisionerStatus,
} from '../../../generated/types/coderprovisioner.ts';
import { nextConditions, type StepOutcome } from '../shared/step-outcome.ts';
import { readyReplicas } from '../shared/deployment-ready.ts';
import { deploymentReadyCondition, provisionerReadyRule } from './readiness.ts';

/**
 * observedGeneration, readyReplicas, phase and DeploymentReady from the Deployment as the cache has it
 * (a step's DeploymentReady, such as ObjectNotOwned, wins), then the steps' fields and conditions, Ready last.
 */
export function computeStatus(
  p: CoderProvisioner,
  deployment: V1Deployment | undefined,
  outcome: StepOutcome<CoderProvisionerStatus>,
  now: Date,
): CoderProvisionerStatus {
  const ready = readyReplicas(deployment);
  const changes = { [C.DeploymentReady.type]: deploymentReadyCondition(deployment), ...outcome.conditions };
  return {
    ...p.status,
    observedGeneration: p.metadata.generation,
    readyReplicas: ready,
    phase: ready > 0 ? 'Ready' : 'Pending',
    ...outcome.status,
    conditions: nextConditions(p, changes, now, provisionerReadyRule) as CoderProvisionerStatus['conditions'],
  };
}
