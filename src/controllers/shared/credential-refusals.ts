// Counts each refusal of a credential Secret once: when an object's CredentialSecretReady turns False, or
// gives another reason while False (a new problem), not at every reconcile that finds the same one.
import { CredentialSecretReadyCondition } from '../../../generated/types/conditions.ts';
import { findCondition, type Condition } from '../../runtime/conditions.ts';
import type { OperatorMetrics } from './metrics.ts';

interface WithConditions {
  status?: { conditions?: readonly Condition[] };
}

/** `kind` is the object's kind, for example CoderProvisioner. */
export function countCredentialRefusal(
  metrics: OperatorMetrics | undefined,
  kind: string,
  before: WithConditions,
  after: WithConditions,
): void {
  if (!metrics) return;
  const now = findCondition(after.status?.conditions, CredentialSecretReadyCondition.type);
  if (now?.status !== 'False') return;
  const previous = findCondition(before.status?.conditions, CredentialSecretReadyCondition.type);
  if (previous?.status === 'False' && previous.reason === now.reason) return;
  metrics.credentialRefusals.inc({ kind, reason: now.reason });
}
