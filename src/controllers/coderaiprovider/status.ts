// The Ready summary and the next status of a provider (pure): Ready names the first problem a reconcile met,
// in the order the schema lists Ready's reasons, or Available.
import {
  CoderAIProviderConditions as C,
  type CoderAIProvider,
  type CoderAIProviderStatus,
} from '../../../generated/types/coderaiprovider.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { nextConditions } from '../shared/step-outcome.ts';

export type ReadyReason = (typeof C.Ready.reasons)[keyof typeof C.Ready.reasons];

/** What keeps the provider from being usable, found by one reconcile. */
export interface Blocker {
  reason: Exclude<ReadyReason, 'Available'>;
  message: string;
}

export function readyCondition(blocker: Blocker | undefined): ConditionInput {
  if (blocker) return { type: C.Ready.type, status: 'False', reason: blocker.reason, message: blocker.message };
  return {
    type: C.Ready.type,
    status: 'True',
    reason: C.Ready.reasons.Available,
    message: 'The provider is in Coder as spec describes; clients reach it at status.routes.',
  };
}

export function computeStatus(
  p: CoderAIProvider,
  changes: { conditions: Record<string, ConditionInput | undefined>; status: Partial<CoderAIProviderStatus> },
  now: Date,
): CoderAIProviderStatus {
  return {
    ...p.status,
    observedGeneration: p.metadata.generation,
    ...changes.status,
    conditions: nextConditions(p, changes.conditions, now) as CoderAIProviderStatus['conditions'],
  };
}
