// The marks the operator puts on every operator token Secret it creates, and the one check that trusts
// such a Secret: controlled by the control plane (same UID) and carrying both marks. A controller owner
// reference alone is not enough: anyone who may create Secrets can copy the control plane's UID into one.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { isControllerOwnedBy } from './ownership.ts';

/** The label the operator puts on every operator token Secret it creates. */
export const operatorTokenLabel = 'coder.com/operator-token';
/** The annotation the operator puts on it: the UID of the control plane it was created for. */
export const operatorTokenOwnerAnnotation = 'coder.com/operator-token-owner';

export function operatorTokenMarks(cp: CoderControlPlane): { labels: Record<string, string>; annotations: Record<string, string> } {
  return { labels: { [operatorTokenLabel]: 'true' }, annotations: { [operatorTokenOwnerAnnotation]: cp.metadata.uid ?? '' } };
}

export function hasOperatorTokenMarks(secret: V1Secret, cp: CoderControlPlane): boolean {
  return (
    secret.metadata?.labels?.[operatorTokenLabel] === 'true' &&
    cp.metadata.uid !== undefined &&
    secret.metadata?.annotations?.[operatorTokenOwnerAnnotation] === cp.metadata.uid
  );
}

/** True only for a token Secret the operator created for this control plane. */
export function isOperatorTokenSecretOf(secret: V1Secret, cp: CoderControlPlane): boolean {
  return isControllerOwnedBy(secret, cp) && hasOperatorTokenMarks(secret, cp);
}
