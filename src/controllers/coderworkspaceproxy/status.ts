// What one step of a proxy's reconcile decides (ProxyOutcome), and what runs, as a proxy's status reports it: the
// Deployment's ready pods (readyReplicas, phase and DeploymentReady).
import type { V1Deployment } from '@kubernetes/client-node';
import {
  CoderWorkspaceProxyConditions as C,
  type CoderWorkspaceProxyConditionChanges,
  type CoderWorkspaceProxyStatus,
} from '../../../generated/types/coderworkspaceproxy.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';
import { workloadStatus } from '../shared/workload/deployment-ready.ts';

/** A step's outcome: its status fields, and conditions of the types and reasons CoderWorkspaceProxy declares. */
export type ProxyOutcome = StepOutcome<CoderWorkspaceProxyStatus, CoderWorkspaceProxyConditionChanges>;

export function proxyWorkload(deployment: V1Deployment | undefined): ProxyOutcome {
  const { status, deploymentReady } = workloadStatus(deployment, C.DeploymentReady, 'proxy', 'The proxy Deployment is not applied yet.');
  return { status, conditions: { [C.DeploymentReady.type]: deploymentReady } };
}
