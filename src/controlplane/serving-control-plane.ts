// Which CoderControlPlane serves a namespace, for every front end that reaches Coder on a caller's
// behalf (the aggregated API and MCP): the one control plane there whose operator access is ready. A
// name with "." is never chosen: the aggregated API's object names cannot carry it, and both front ends
// must give a namespace the same Coder.
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';

export type ServingChoice = { kind: 'one'; controlPlane: CoderControlPlane } | { kind: 'none' } | { kind: 'several'; names: string[] };

/** Whether `cp` may serve its namespace: operator access ready, with a token Secret and a URL, and not being deleted. */
export function mayServeNamespace(cp: CoderControlPlane): boolean {
  return (
    !cp.metadata.name?.includes('.') &&
    cp.spec?.operatorAccess?.disabled !== true &&
    cp.status?.operatorAccessReady === true &&
    Boolean(cp.status?.operatorTokenSecretRef) &&
    Boolean(cp.status?.url?.trim()) &&
    !cp.metadata.deletionTimestamp
  );
}

/** The control plane of one namespace's list that serves it, or that none or several could. */
export function servingControlPlane(controlPlanes: readonly CoderControlPlane[]): ServingChoice {
  const candidates = controlPlanes.filter(mayServeNamespace);
  if (candidates.length === 1) return { kind: 'one', controlPlane: candidates[0]! };
  if (candidates.length === 0) return { kind: 'none' };
  return { kind: 'several', names: candidates.map((cp) => cp.metadata.name!) };
}
