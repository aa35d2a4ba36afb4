// What runs, as the control plane's status reports it: the Deployment's ready pods and where Coder is reached.
import type { V1Deployment } from '@kubernetes/client-node';
import {
  CoderControlPlaneConditions as C,
  type CoderControlPlane,
  type CoderControlPlaneStatus,
} from '../../../generated/types/codercontrolplane.ts';
import { statusURL } from '../../controlplane/endpoints.ts';
import { workloadStatus } from '../shared/workload/deployment-ready.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';

export function controlPlaneWorkload(cp: CoderControlPlane, deployment: V1Deployment | undefined): StepOutcome<CoderControlPlaneStatus> {
  const workload = workloadStatus(deployment, C.DeploymentReady, 'Coder');
  return { ...workload, status: { ...workload.status, url: statusURL(cp) } };
}
