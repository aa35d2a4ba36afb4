// The next status of a proxy from the merged outcomes of one reconcile (pure); written only if it differs.
import type { V1Deployment } from '@kubernetes/client-node';
import type { CoderWorkspaceProxy, CoderWorkspaceProxyStatus } from '../../../generated/types/coderworkspaceproxy.ts';
import { nextConditions, type StepOutcome } from '../shared/step-outcome.ts';
import { readyReplicas } from '../shared/deployment-ready.ts';
import { deploymentReadyCondition, workspaceProxyReadyRule } from './readiness.ts';

export function computeStatus(
  proxy: CoderWorkspaceProxy,
  deployment: V1Deployment | undefined,
  outcome: StepOutcome<CoderWorkspaceProxyStatus>,
  now: Date,
): CoderWorkspaceProxyStatus {
  const ready = readyReplicas(deployment);
  const deploymentReady = deploymentReadyCondition(deployment);
  return {
    ...proxy.status,
    observedGeneration: proxy.metadata.generation,
    readyReplicas: ready,
    phase: ready > 0 ? 'Ready' : 'Pending',
    ...outcome.status,
    conditions: nextConditions(
      proxy,
      { ...outcome.conditions, [deploymentReady.type]: deploymentReady },
      now,
      workspaceProxyReadyRule,
    ) as CoderWorkspaceProxyStatus['conditions'],
  };
}
