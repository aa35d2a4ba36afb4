// The operator token Secret (seed §Operator token Secret): created with the control plane as its
// controller owner and the operator's marks (shared/operator-token-marks.ts); read and updated only while
// both hold; any other Secret of that name is left alone, not read, not adopted.
import type { V1Secret } from '@kubernetes/client-node';
import { CoderControlPlaneConditions, type CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { operatorTokenKey, operatorTokenSecretName } from '../shared/control-plane-endpoints.ts';
import { credentialMarks } from '../shared/credential-secret.ts';
import { controllerOwnerReference } from '../shared/object-names.ts';
import {
  hasOperatorTokenMarks,
  operatorTokenLabel,
  operatorTokenMarks,
  operatorTokenOwnerAnnotation,
} from '../shared/operator-token-marks.ts';
import { isControllerOwnedBy } from '../shared/ownership.ts';
import { secretValue } from '../shared/secret-value.ts';
import { controlPlaneLabels } from './desired/names.ts';

const { type, reasons } = CoderControlPlaneConditions.OperatorTokenSecretOwned;
export const tokenOwnershipConditionType = type;
/** How often a control plane whose token Secret is foreign looks again. */
export const notOwnedRecheckMs = 30_000;

export type TokenSecretOwnership = 'absent' | 'owned' | 'foreign' | 'unmarked';

export function tokenSecretOwnership(cp: CoderControlPlane, secret: V1Secret | undefined): TokenSecretOwnership {
  if (!secret) return 'absent';
  if (!isControllerOwnedBy(secret, cp)) return 'foreign';
  return hasOperatorTokenMarks(secret, cp) ? 'owned' : 'unmarked';
}

/** Whether the Secret may be read and written: only one the operator created for this control plane. */
export function isTrusted(ownership: TokenSecretOwnership): boolean {
  return ownership === 'owned' || ownership === 'absent';
}

export function ownershipCondition(cp: CoderControlPlane, ownership: TokenSecretOwnership): ConditionInput {
  const name = operatorTokenSecretName(cp);
  const namespace = cp.metadata.namespace;
  if (isTrusted(ownership)) {
    return {
      type,
      status: 'True',
      reason: reasons.TokenSecretOwned,
      message:
        ownership === 'owned'
          ? `Secret "${namespace}/${name}" is controlled by this control plane.`
          : `Secret "${namespace}/${name}" does not exist yet; the controller creates it once operator access works (see OperatorAccessReady).`,
    };
  }
  return {
    type,
    status: 'False',
    reason: reasons.TokenSecretNotOwned,
    message:
      (ownership === 'unmarked'
        ? `Secret "${namespace}/${name}" names this control plane as its controller owner but lacks the operator's marks ` +
          `(label ${operatorTokenLabel}=true and annotation ${operatorTokenOwnerAnnotation} holding this control plane's UID) ` +
          'and holds no live operator token of this control plane, so the operator did not create it and does not trust, change or adopt it. '
        : `Secret "${namespace}/${name}" exists and this control plane is not its controller owner, so the operator ` +
          'does not read, change or adopt it. ') +
      'Delete it if it is a leftover operator token Secret, or set ' +
      'spec.operatorAccess.generatedTokenSecretName to a name that does not exist yet.',
  };
}

/** The token held by a Secret this control plane owns; undefined when missing or empty. */
export function readToken(secret: V1Secret): string | undefined {
  return secretValue(secret, operatorTokenKey)?.trim() || undefined;
}

export function buildTokenSecret(cp: CoderControlPlane, token: string): V1Secret {
  const marks = credentialMarks({ kind: coderControlPlaneResource.kind, metadata: cp.metadata });
  const tokenMarks = operatorTokenMarks(cp);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: operatorTokenSecretName(cp),
      namespace: cp.metadata.namespace,
      labels: { ...controlPlaneLabels(cp), ...marks.labels, ...tokenMarks.labels },
      annotations: { ...marks.annotations, ...tokenMarks.annotations },
      ownerReferences: [controllerOwnerReference(coderControlPlaneResource, cp)],
    },
    type: 'Opaque',
    data: { [operatorTokenKey]: Buffer.from(token).toString('base64') },
  };
}
