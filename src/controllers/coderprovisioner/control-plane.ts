// The control plane a provisioner serves (spec.controlPlaneRef, in its namespace): it must exist, have a URL
// and give the operator access to its Coder, where the provisioner key is made (ControlPlaneReady and
// OperatorAccessReady). Until it does, nothing else is reconciled, and it is looked at again every 30 s.
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import {
  CoderProvisionerConditions as C,
  type CoderProvisioner,
  type CoderProvisionerStatus,
} from '../../../generated/types/coderprovisioner.ts';
import type { CoderClient } from '../../coder/client.ts';
import { controlPlaneRetryMs, resolveControlPlane } from '../../controlplane/access.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';
import type { ProvisionerContext } from './context.ts';
import { namespaceOf } from './desired/names.ts';

export type ControlPlaneOutcome = StepOutcome<CoderProvisionerStatus> &
  ({ stop: true } | { stop?: undefined; controlPlane: CoderControlPlane; client: CoderClient });

export function resolveProvisionerControlPlane(ctx: ProvisionerContext, p: CoderProvisioner): ControlPlaneOutcome {
  const name = p.spec!.controlPlaneRef.name!.trim();
  const access = resolveControlPlane(ctx, ctx.caches, namespaceOf(p), { name });
  if (!access.usable) {
    const problem: ConditionInput =
      access.reason === 'ControlPlaneUnavailable'
        ? {
            type: C.ControlPlaneReady.type,
            status: 'False',
            reason: C.ControlPlaneReady.reasons.ControlPlaneUnavailable,
            message: access.message,
          }
        : {
            type: C.OperatorAccessReady.type,
            status: 'False',
            reason: C.OperatorAccessReady.reasons.OperatorAccessNotReady,
            message: access.message,
          };
    // Without a control plane nothing can be said about its operator access.
    const conditions = { [C.ControlPlaneReady.type]: controlPlaneAvailable(name), [C.OperatorAccessReady.type]: undefined };
    return { conditions: { ...conditions, [problem.type]: problem }, requeueAfterMs: controlPlaneRetryMs, stop: true };
  }
  return {
    conditions: {
      [C.ControlPlaneReady.type]: controlPlaneAvailable(name),
      [C.OperatorAccessReady.type]: {
        type: C.OperatorAccessReady.type,
        status: 'True',
        reason: C.OperatorAccessReady.reasons.OperatorAccessReady,
        message: `The operator token of CoderControlPlane "${name}" was read.`,
      },
    },
    controlPlane: access.controlPlane,
    client: access.client,
  };
}

function controlPlaneAvailable(name: string): ConditionInput {
  return {
    type: C.ControlPlaneReady.type,
    status: 'True',
    reason: C.ControlPlaneReady.reasons.ControlPlaneAvailable,
    message: `CoderControlPlane "${name}" exists and has a URL.`,
  };
}
