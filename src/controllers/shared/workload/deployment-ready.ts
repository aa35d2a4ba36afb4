// What runs, for the kinds with pods (the control plane, provisioners, proxies): whether the Deployment has at
// least one ready pod (DeploymentReady), its ready replicas and the phase they give.
import type { V1Deployment } from '@kubernetes/client-node';
import type { ConditionWith } from '../../../runtime/conditions.ts';

export function readyReplicas(deployment: V1Deployment | undefined): number {
  return deployment?.status?.readyReplicas ?? 0;
}

/** The DeploymentReady declaration every such kind makes in its schema. */
export interface DeploymentReadyDeclaration {
  type: string;
  reasons: { MinimumReplicasReady: string; NoReplicasReady: string };
}

/** DeploymentReady of `D`, with the reasons decided from the pods. */
export type DeploymentReady<D extends DeploymentReadyDeclaration> = ConditionWith<
  D['type'],
  D['reasons']['MinimumReplicasReady' | 'NoReplicasReady']
>;

/** `pod` names the pods in messages ("Coder", "proxy"); `notApplied` is the message while there is no Deployment yet. */
function deploymentReadyCondition<D extends DeploymentReadyDeclaration>(
  deployment: V1Deployment | undefined,
  declaration: D,
  pod: string,
  notApplied?: string,
): DeploymentReady<D> {
  const ready = readyReplicas(deployment);
  const wanted = deployment?.spec?.replicas ?? 1;
  if (ready > 0) {
    return {
      type: declaration.type,
      status: 'True',
      reason: declaration.reasons.MinimumReplicasReady,
      message: `${ready} of ${wanted} ${pod} pods are ready.`,
    };
  }
  const message = !deployment && notApplied ? notApplied : `No ${pod} pod is ready yet (0 of ${wanted}).`;
  return { type: declaration.type, status: 'False', reason: declaration.reasons.NoReplicasReady, message };
}

/**
 * The status fields and DeploymentReady that describe what runs, from the Deployment (as the cache has it, or as
 * just applied), for the kind to add under the steps' outcomes: a step's own DeploymentReady (for example
 * ObjectNotOwned) wins.
 */
export function workloadStatus<D extends DeploymentReadyDeclaration>(
  deployment: V1Deployment | undefined,
  declaration: D,
  pod: string,
  notApplied?: string,
): { status: { readyReplicas: number; phase: 'Ready' | 'Pending' }; deploymentReady: DeploymentReady<D> } {
  const ready = readyReplicas(deployment);
  return {
    status: { readyReplicas: ready, phase: ready > 0 ? 'Ready' : 'Pending' },
    deploymentReady: deploymentReadyCondition(deployment, declaration, pod, notApplied),
  };
}
