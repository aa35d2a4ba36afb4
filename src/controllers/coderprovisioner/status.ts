// What runs, as a provisioner's status reports it: the Deployment's ready pods (readyReplicas, phase and
// DeploymentReady), added under the steps' outcomes: a step's own DeploymentReady (ObjectNotOwned) wins.
import type { V1Deployment } from '@kubernetes/client-node';
import { CoderProvisionerConditions as C, type CoderProvisionerStatus } from '../../../generated/types/coderprovisioner.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';
import { workloadStatus } from '../shared/workload/deployment-ready.ts';

export function provisionerWorkload(deployment: V1Deployment | undefined): StepOutcome<CoderProvisionerStatus> {
  return workloadStatus(deployment, C.DeploymentReady, 'provisioner', 'The provisioner Deployment does not exist yet.');
}
