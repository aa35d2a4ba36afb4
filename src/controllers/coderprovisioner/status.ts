// What one step of a provisioner's reconcile decides (ProvisionerOutcome), and what runs, as its status reports
// it: the Deployment's ready pods (readyReplicas, phase and DeploymentReady), added under the steps' outcomes: a
// step's own DeploymentReady (ObjectNotOwned) wins.
import type { V1Deployment } from '@kubernetes/client-node';
import {
  CoderProvisionerConditions as C,
  type CoderProvisionerConditionChanges,
  type CoderProvisionerStatus,
} from '../../../generated/types/coderprovisioner.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';
import { workloadStatus } from '../shared/workload/deployment-ready.ts';

/** A step's outcome: its status fields, and conditions of the types and reasons CoderProvisioner declares. */
export type ProvisionerOutcome = StepOutcome<CoderProvisionerStatus, CoderProvisionerConditionChanges>;

export function provisionerWorkload(deployment: V1Deployment | undefined): ProvisionerOutcome {
  const { status, deploymentReady } = workloadStatus(
    deployment,
    C.DeploymentReady,
    'provisioner',
    'The provisioner Deployment does not exist yet.',
  );
  return { status, conditions: { [C.DeploymentReady.type]: deploymentReady } };
}
