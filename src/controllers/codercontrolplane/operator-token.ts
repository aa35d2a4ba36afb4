// The operator token Secret (docs/how-to/deploy-controller.md, "Operator token Secret"): created with the control plane as its controller
// owner, its UID recorded in status.operatorTokenSecretUID, and read and updated only while it is that very
// Secret. The rule for upgrades: a Secret the control plane controls that an earlier version used
// (its status reports access ready with status.operatorTokenSecretRef naming it, and no UID is recorded yet)
// is adopted, its UID recorded. Any other
// Secret of that name is left alone, not read, not written.
import type { V1Secret } from '@kubernetes/client-node';
import { CoderControlPlaneConditions, type CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { operatorTokenKey, operatorTokenSecretName } from '../../controlplane/endpoints.ts';
import { credentialMarks } from '../shared/credential-secret.ts';
import { controllerOwnerReference } from '../../runtime/object-names.ts';
import { operatorTokenMarks } from '../../controlplane/operator-token-marks.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { secretValue } from '../../runtime/secret-value.ts';
import { controlPlaneLabels } from './desired/names.ts';

const OperatorTokenSecretOwned = CoderControlPlaneConditions.OperatorTokenSecretOwned;
const { type, reasons } = OperatorTokenSecretOwned;
export const tokenOwnershipConditionType = type;
/** How often a control plane whose token Secret is refused looks again. */
export const notOwnedRecheckMs = 30_000;

/**
 * absent: none of that name. foreign: not controlled by this control plane. recorded: the Secret whose UID
 * the status records. earlier: controlled by it, no UID recorded, and the status shows that an earlier version
 * used it. replaced (another UID recorded) and unrecorded (nothing recorded): controlled by it, with nothing
 * to show the operator made it; only a live operator token in it can (earlier-token-secret.ts).
 */
export type TokenSecretOwnership = 'absent' | 'foreign' | 'recorded' | 'replaced' | 'earlier' | 'unrecorded';

export function tokenSecretOwnership(cp: CoderControlPlane, secret: V1Secret | undefined): TokenSecretOwnership {
  if (!secret) return 'absent';
  if (!isControllerOwnedBy(secret, cp)) return 'foreign';
  const recorded = cp.status?.operatorTokenSecretUID;
  if (recorded) return secret.metadata?.uid === recorded ? 'recorded' : 'replaced';
  // This version reports access ready only with the UID recorded, so access ready and the reference alone were
  // left by an earlier version (a reference without access ready is also the retry marker of a failed disable).
  const usedBefore = cp.status?.operatorAccessReady === true && cp.status.operatorTokenSecretRef?.name === operatorTokenSecretName(cp);
  return usedBefore ? 'earlier' : 'unrecorded';
}

/** The labels and annotations the operator sets on its token Secret, and the only ones it writes there. */
export function ownMarks(cp: CoderControlPlane): { labels: Record<string, string>; annotations: Record<string, string> } {
  const marks = credentialMarks({ kind: coderControlPlaneResource.kind, metadata: cp.metadata });
  const tokenMarks = operatorTokenMarks(cp);
  return {
    labels: { ...controlPlaneLabels(cp), ...marks.labels, ...tokenMarks.labels },
    annotations: { ...marks.annotations, ...tokenMarks.annotations },
  };
}

/** Kubernetes' own annotation domains (kubectl's last-applied-configuration, say): set by its tools, never a copier's. */
const kubernetesDomain = /^(?:.+\.)?(?:kubernetes\.io|k8s\.io)$/;

/**
 * The keys of annotations on the Secret that the operator did not set (its own keys with another value count too:
 * coder.com/credential-destinations decides which pods may mount it). Tools that copy a Secret into other
 * namespaces (reflector.v1.k8s.emberstack.com/reflection-allowed, replicator.v1.mittwald.de/replicate-to,
 * kubed.appscode.com/sync, and many more) are switched on by an annotation on it: no list of them is
 * complete, so any annotation but the operator's own and Kubernetes' counts.
 */
export function foreignAnnotations(cp: CoderControlPlane, secret: V1Secret): string[] {
  const own = ownMarks(cp).annotations;
  return Object.entries(secret.metadata?.annotations ?? {})
    .filter(([key, value]) => own[key] !== value)
    .map(([key]) => key)
    .filter((key) => !(key.includes('/') && kubernetesDomain.test(key.slice(0, key.indexOf('/')))))
    .sort();
}

/** OperatorTokenSecretOwned. */
export type OwnershipCondition = ConditionOf<typeof OperatorTokenSecretOwned>;

export function ownershipCondition(cp: CoderControlPlane, ownership: TokenSecretOwnership, secret?: V1Secret): OwnershipCondition {
  const name = operatorTokenSecretName(cp);
  const namespace = cp.metadata.namespace;
  const named = `Secret "${namespace}/${name}"`;
  const deleteIt = 'Delete it: the controller then creates its own Secret and a new operator token.';
  const notOwned = (message: string): OwnershipCondition => ({ type, status: 'False', reason: reasons.TokenSecretNotOwned, message });
  switch (ownership) {
    case 'absent':
      return {
        type,
        status: 'True',
        reason: reasons.TokenSecretOwned,
        message: `${named} does not exist yet; the controller creates it once operator access works (see OperatorAccessReady).`,
      };
    case 'recorded':
    case 'earlier':
      return { type, status: 'True', reason: reasons.TokenSecretOwned, message: `${named} is controlled by this control plane.` };
    case 'foreign':
      return notOwned(
        `${named} exists and this control plane is not its controller owner, so the operator does not read, change or adopt it. ` +
          'Delete it if it is a leftover operator token Secret, or set spec.operatorAccess.generatedTokenSecretName to a name ' +
          'that does not exist yet.',
      );
    case 'replaced':
      return notOwned(
        `${named} names this control plane as its controller owner, but it is not the Secret the operator created: its UID ` +
          `${secret?.metadata?.uid ?? '(none)'} is not the one in status.operatorTokenSecretUID (${cp.status?.operatorTokenSecretUID}), ` +
          `and it holds no live operator token of this control plane. The operator does not read it or write a token into it. ${deleteIt}`,
      );
    case 'unrecorded':
      return notOwned(
        `${named} names this control plane as its controller owner, but the operator did not create it: status.operatorTokenSecretUID ` +
          'records no Secret, no earlier version used it (status.operatorTokenSecretRef), and it holds no live operator token of this ' +
          `control plane. The operator does not read it or write a token into it. ${deleteIt}`,
      );
  }
}

/** The operator's own Secret carries annotations it did not set: no token goes into it (the step revokes the one there). */
export function foreignAnnotationsCondition(cp: CoderControlPlane, keys: string[]): OwnershipCondition {
  return {
    type,
    status: 'False',
    reason: reasons.ForeignAnnotations,
    message:
      `Secret "${cp.metadata.namespace}/${operatorTokenSecretName(cp)}" carries annotations that the operator did not set: ` +
      `${keys.join(', ')}. Annotations like these make tools copy a Secret into other namespaces, so the operator revokes ` +
      "its token in Coder's database and writes no new one into it. Remove them (or delete the Secret): the controller then " +
      'writes a new token.',
  };
}

/** The token held by a Secret this control plane owns; undefined when missing or empty. */
export function readToken(secret: V1Secret): string | undefined {
  return secretValue(secret, operatorTokenKey)?.trim() || undefined;
}

export function buildTokenSecret(cp: CoderControlPlane, token: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: operatorTokenSecretName(cp),
      namespace: cp.metadata.namespace,
      ...ownMarks(cp),
      ownerReferences: [controllerOwnerReference(coderControlPlaneResource, cp)],
    },
    type: 'Opaque',
    data: { [operatorTokenKey]: Buffer.from(token).toString('base64') },
  };
}

/** The merge patch of a token write into the recorded Secret: the token, and the operator's marks set back. */
export function tokenWritePatch(cp: CoderControlPlane, token: string): { metadata: object; data: Record<string, string> } {
  return { metadata: ownMarks(cp), data: { [operatorTokenKey]: Buffer.from(token).toString('base64') } };
}
