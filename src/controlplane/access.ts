// The control plane seen from another kind: spec.controlPlaneRef → the CoderControlPlane in the same
// namespace (from the cache) → the operator token in the Secret that control plane controls → a Coder
// client on its in-cluster Service URL (same-origin rule). Pure apart from building the client.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import type { CoderClient } from '../coder/client.ts';
import { InvalidCoderTokenError } from '../coder/errors.ts';
import type { Cache } from '../runtime/cache.ts';
import { operatorTokenKey, operatorTokenSecretName } from './endpoints.ts';
import type { CoderClientFor } from './coder-client.ts';
import { isOperatorTokenSecretOf } from './operator-token-marks.ts';
import { secretValue } from '../runtime/secret-value.ts';

/** How often a kind whose control plane is not usable looks again (the schemas' "retried every 30 s"). */
export const controlPlaneRetryMs = 30_000;

export type ControlPlaneAccess =
  | { usable: true; controlPlane: CoderControlPlane; client: CoderClient }
  | { usable: false; reason: 'ControlPlaneUnavailable' | 'OperatorAccessNotReady'; message: string };

/** Only lookups by name are needed, so one object read straight from the API server fits too. */
export interface ControlPlaneCaches {
  controlPlanes: Pick<Cache<CoderControlPlane>, 'get'>;
  secrets: Pick<Cache<V1Secret>, 'get'>;
}

/**
 * The control plane `ref` names in `namespace`, and a Coder client with its operator token, or why not.
 * `ownerFor` names the kind of a caller whose Coder calls need the owner role: the control plane grants it
 * once it sees the object, and says so in status.operatorRole; until then Coder would answer 403.
 */
export function resolveControlPlane(
  deps: { coderClient: CoderClientFor },
  caches: ControlPlaneCaches,
  namespace: string,
  ref: { name: string },
  options: { ownerFor?: string } = {},
): ControlPlaneAccess {
  const cp = caches.controlPlanes.get(namespace, ref.name);
  const named = `CoderControlPlane "${namespace}/${ref.name}"`;
  if (!cp) return { usable: false, reason: 'ControlPlaneUnavailable', message: `${named} (spec.controlPlaneRef) does not exist.` };
  if (cp.metadata.deletionTimestamp) return { usable: false, reason: 'ControlPlaneUnavailable', message: `${named} is being deleted.` };
  if (!cp.status?.url) return { usable: false, reason: 'ControlPlaneUnavailable', message: `${named} has no status.url yet.` };
  const notReady = (why: string) => ({
    usable: false as const,
    reason: 'OperatorAccessNotReady' as const,
    message: `${named} has no operator access: ${why}.`,
  });
  if (cp.status.operatorAccessReady !== true || !cp.status.operatorTokenSecretRef) {
    return notReady('status.operatorAccessReady is not true (see its OperatorTokenSecretOwned condition)');
  }
  if (options.ownerFor && cp.status.operatorRole !== 'owner') {
    return notReady(
      `its operator user is ${cp.status.operatorRole ?? 'of no recorded role'} (status.operatorRole), and a ${options.ownerFor} needs the Coder owner role, which the control plane grants once it sees this object`,
    );
  }
  const secretName = operatorTokenSecretName(cp);
  const secret = caches.secrets.get(namespace, secretName);
  // Only the Secret the operator created for the control plane is read: its UID is in the status, which only the operator writes.
  if (!secret || !isOperatorTokenSecretOf(secret, cp)) {
    return notReady(
      `its token Secret "${secretName}" is missing, not controlled by it, or not the one its status.operatorTokenSecretUID records`,
    );
  }
  const token = secretValue(secret, operatorTokenKey)?.trim();
  if (!token) return notReady(`its token Secret "${secretName}" has no value at key "${operatorTokenKey}"`);
  let client: CoderClient;
  try {
    client = deps.coderClient(cp, token);
  } catch (err) {
    if (!(err instanceof InvalidCoderTokenError)) throw err;
    // Only the operator writes that Secret: the control plane finds the token invalid and replaces it at its next reconcile.
    return notReady(
      `its token Secret "${secretName}" holds a value at key "${operatorTokenKey}" with a space, line break, control ` +
        'character or non-ASCII character, which no Coder session token has; the control plane writes a new token into it ' +
        'at its next reconcile',
    );
  }
  return { usable: true, controlPlane: cp, client };
}
