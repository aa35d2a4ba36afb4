// The first step of every kind that keeps an object in a control plane's Coder: spec.controlPlaneRef →
// the control plane with operator access and the owner role (resolveControlPlane) → its build info, read through the shared
// CoderFacts cache. The outcome is the ControlPlaneReady condition these kinds declare (the shared set
// schemas/common/conditions/control-plane-ready.yaml).
import type { Schemas } from '../../../coder/api-types.ts';
import type { CoderClient } from '../../../coder/client.ts';
import type { ConditionOf } from '../../../runtime/conditions.ts';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import { ControlPlaneReadyCondition } from '../../../../generated/types/conditions.ts';
import type { CoderFacts } from '../coder-facts.ts';
import { controlPlaneRetryMs, resolveControlPlane, type ControlPlaneCaches } from '../../../controlplane/access.ts';
import type { ControllerDeps } from '../deps.ts';

const C = ControlPlaneReadyCondition;

export type CoderConnection =
  | {
      connected: true;
      controlPlane: CoderControlPlane;
      client: CoderClient;
      buildInfo: Schemas['BuildInfoResponse'];
      condition: ConditionOf<typeof C>;
    }
  | {
      connected: false;
      condition: ConditionOf<typeof C>;
      /** Set for a control plane that is not usable yet: look again then (nothing in the watch says when). */
      requeueAfterMs?: number;
      /** Set when Coder did not answer: thrown after the status is written, so the queue backs off. */
      error?: Error;
    };

export async function connectToCoder(
  deps: Pick<ControllerDeps, 'coderClient'>,
  caches: ControlPlaneCaches,
  facts: CoderFacts,
  obj: { metadata: { namespace?: string }; spec: { controlPlaneRef: { name: string } } },
  kind: string,
  signal?: AbortSignal,
): Promise<CoderConnection> {
  const namespace = obj.metadata.namespace ?? '';
  const access = resolveControlPlane(deps, caches, namespace, obj.spec.controlPlaneRef, { ownerFor: kind });
  if (!access.usable) {
    return {
      connected: false,
      condition: { type: C.type, status: 'False', reason: access.reason, message: access.message },
      requeueAfterMs: controlPlaneRetryMs,
    };
  }
  const named = `CoderControlPlane "${namespace}/${obj.spec.controlPlaneRef.name}"`;
  try {
    const buildInfo = await facts.buildInfo(access.controlPlane, access.client, { signal });
    return {
      connected: true,
      controlPlane: access.controlPlane,
      client: access.client,
      buildInfo,
      condition: {
        type: C.type,
        status: 'True',
        reason: C.reasons.ControlPlaneAvailable,
        message: `${named} answered GET /api/v2/buildinfo: Coder ${buildInfo.version}.`,
      },
    };
  } catch (err) {
    signal?.throwIfAborted();
    const error = err instanceof Error ? err : new Error(String(err));
    return {
      connected: false,
      condition: {
        type: C.type,
        status: 'False',
        reason: C.reasons.CoderUnreachable,
        message: `${named} did not answer GET /api/v2/buildinfo: ${error.message}`,
      },
      error,
    };
  }
}
