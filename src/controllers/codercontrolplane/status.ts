// What one step of a control plane's reconcile decides (ControlPlaneOutcome), and what runs, as the control plane's
// status reports it: the Deployment's ready pods and where Coder is reached.
import type { V1Deployment } from '@kubernetes/client-node';
import {
  CoderControlPlaneConditions as C,
  type CoderControlPlane,
  type CoderControlPlaneConditionChanges,
  type CoderControlPlaneStatus,
} from '../../../generated/types/codercontrolplane.ts';
import { statusURL } from '../../controlplane/endpoints.ts';
import { workloadStatus } from '../shared/workload/deployment-ready.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';

/** A step's outcome: its status fields, and conditions of the types and reasons CoderControlPlane declares. */
export type ControlPlaneOutcome = StepOutcome<CoderControlPlaneStatus, CoderControlPlaneConditionChanges>;

export function controlPlaneWorkload(cp: CoderControlPlane, deployment: V1Deployment | undefined): ControlPlaneOutcome {
  const { status, deploymentReady } = workloadStatus(deployment, C.DeploymentReady, 'Coder');
  return { status: { ...status, url: statusURL(cp) }, conditions: { [C.DeploymentReady.type]: deploymentReady } };
}
