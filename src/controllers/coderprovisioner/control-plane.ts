// The control plane a provisioner serves (spec.controlPlaneRef, in its namespace): it must exist, have a URL
// and give the operator access to its Coder, where the provisioner key is made (ControlPlaneReady and
// OperatorAccessReady). Until it does, nothing else is reconciled, and it is looked at again every 30 s.
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { CoderProvisionerConditions as C, type CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import type { CoderClient } from '../../coder/client.ts';
import { controlPlaneRetryMs, resolveControlPlane } from '../../controlplane/access.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import type { ProvisionerContext } from './context.ts';
import { namespaceOf } from './desired/names.ts';
import type { ProvisionerOutcome } from './status.ts';

export type ControlPlaneOutcome = ProvisionerOutcome &
  ({ stop: true } | { stop?: undefined; controlPlane: CoderControlPlane; client: CoderClient });

export function resolveProvisionerControlPlane(ctx: ProvisionerContext, p: CoderProvisioner): ControlPlaneOutcome {
  const name = p.spec!.controlPlaneRef.name!.trim();
  const access = resolveControlPlane(ctx, ctx.caches, namespaceOf(p), { name });
  if (!access.usable) {
    const conditions: ProvisionerOutcome['conditions'] =
      access.reason === 'ControlPlaneUnavailable'
        ? {
            [C.ControlPlaneReady.type]: {
              type: C.ControlPlaneReady.type,
              status: 'False',
              reason: C.ControlPlaneReady.reasons.ControlPlaneUnavailable,
              message: access.message,
            },
            // Without a control plane nothing can be said about its operator access.
            [C.OperatorAccessReady.type]: undefined,
          }
        : {
            [C.ControlPlaneReady.type]: controlPlaneAvailable(name),
            [C.OperatorAccessReady.type]: {
              type: C.OperatorAccessReady.type,
              status: 'False',
              reason: C.OperatorAccessReady.reasons.OperatorAccessNotReady,
              message: access.message,
            },
          };
    return { conditions, requeueAfterMs: controlPlaneRetryMs, stop: true };
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

function controlPlaneAvailable(name: string): ConditionOf<typeof C.ControlPlaneReady> {
  return {
    type: C.ControlPlaneReady.type,
    status: 'True',
    reason: C.ControlPlaneReady.reasons.ControlPlaneAvailable,
    message: `CoderControlPlane "${name}" exists and has a URL.`,
  };
}
