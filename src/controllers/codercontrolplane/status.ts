// The next status of a control plane from the merged outcomes of one reconcile (pure); written only if it differs.
import type { V1Deployment } from '@kubernetes/client-node';
import type { CoderControlPlane, CoderControlPlaneStatus } from '../../../generated/types/codercontrolplane.ts';
import { statusURL } from '../../controlplane/endpoints.ts';
import { nextConditions, type StepOutcome } from '../shared/step-outcome.ts';
import { readyReplicas } from '../shared/deployment-ready.ts';
import { controlPlaneReadyRule, deploymentReadyCondition } from './readiness.ts';

export function computeStatus(
  cp: CoderControlPlane,
  deployment: V1Deployment | undefined,
  outcome: StepOutcome<CoderControlPlaneStatus>,
  now: Date,
): CoderControlPlaneStatus {
  const ready = readyReplicas(deployment);
  const deploymentReady = deploymentReadyCondition(deployment);
  return {
    ...cp.status,
    observedGeneration: cp.metadata.generation,
    readyReplicas: ready,
    url: statusURL(cp),
    phase: ready > 0 ? 'Ready' : 'Pending',
    ...outcome.status,
    conditions: nextConditions(
      cp,
      { ...outcome.conditions, [deploymentReady.type]: deploymentReady },
      now,
      controlPlaneReadyRule,
    ) as CoderControlPlaneStatus['conditions'],
  };
}
