// The marks the operator puts on every operator token Secret it creates, and the one check that trusts
// such a Secret: controlled by the control plane and the very Secret whose UID the control plane's status
// records. Neither an owner reference nor the marks are enough: anyone who may create Secrets can copy the
// control plane's UID into both; only the operator writes the status.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { isControllerOwnedBy } from '../runtime/ownership.ts';

/** The label the operator puts on every operator token Secret it creates. */
export const operatorTokenLabel = 'coder.com/operator-token';
/** The annotation the operator puts on it: the UID of the control plane it was created for. */
export const operatorTokenOwnerAnnotation = 'coder.com/operator-token-owner';

export function operatorTokenMarks(cp: CoderControlPlane): { labels: Record<string, string>; annotations: Record<string, string> } {
  return { labels: { [operatorTokenLabel]: 'true' }, annotations: { [operatorTokenOwnerAnnotation]: cp.metadata.uid ?? '' } };
}

/** True only for the token Secret the operator created (or adopted) for this control plane, as its status records. */
export function isOperatorTokenSecretOf(secret: V1Secret, cp: CoderControlPlane): boolean {
  const recorded = cp.status?.operatorTokenSecretUID;
  return Boolean(recorded) && secret.metadata?.uid === recorded && isControllerOwnedBy(secret, cp);
}
