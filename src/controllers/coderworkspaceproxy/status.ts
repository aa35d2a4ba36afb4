// What runs, as a proxy's status reports it: the Deployment's ready pods (readyReplicas, phase and DeploymentReady).
import type { V1Deployment } from '@kubernetes/client-node';
import { CoderWorkspaceProxyConditions as C, type CoderWorkspaceProxyStatus } from '../../../generated/types/coderworkspaceproxy.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';
import { workloadStatus } from '../shared/workload/deployment-ready.ts';

export function proxyWorkload(deployment: V1Deployment | undefined): StepOutcome<CoderWorkspaceProxyStatus> {
  return workloadStatus(deployment, C.DeploymentReady, 'proxy', 'The proxy Deployment is not applied yet.');
}
