// DeploymentReady: whether a kind's Deployment has at least one ready pod (the control plane, provisioners, proxies).
import type { V1Deployment } from '@kubernetes/client-node';
import type { ConditionInput } from '../../runtime/conditions.ts';

export function readyReplicas(deployment: V1Deployment | undefined): number {
  return deployment?.status?.readyReplicas ?? 0;
}

/** The DeploymentReady declaration every such kind makes in its schema. */
export interface DeploymentReadyDeclaration {
  type: string;
  reasons: { MinimumReplicasReady: string; NoReplicasReady: string };
}

/** `pod` names the pods in messages ("Coder", "proxy"); `notApplied` is the message while there is no Deployment yet. */
export function deploymentReadyCondition(
  deployment: V1Deployment | undefined,
  declaration: DeploymentReadyDeclaration,
  pod: string,
  notApplied?: string,
): ConditionInput {
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
