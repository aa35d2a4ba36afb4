// The Ready summary, the Connected condition and the next status of an AI Gateway key (pure).
import {
  CoderAIGatewayKeyConditions as C,
  type CoderAIGatewayKey,
  type CoderAIGatewayKeyStatus,
} from '../../../generated/types/coderaigatewaykey.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { nextConditions } from '../shared/step-outcome.ts';

export type ReadyReason = (typeof C.Ready.reasons)[keyof typeof C.Ready.reasons];

export interface Blocker {
  reason: Exclude<ReadyReason, 'Available'>;
  message: string;
}

/** A heartbeat younger than this means a gateway is connected (Coder refreshes it about every 60 s). */
export const heartbeatFreshMs = 3 * 60_000;

export function readyCondition(blocker: Blocker | undefined): ConditionInput {
  if (blocker) return { type: C.Ready.type, status: 'False', reason: blocker.reason, message: blocker.message };
  return {
    type: C.Ready.type,
    status: 'True',
    reason: C.Ready.reasons.Available,
    message: 'The key exists in Coder and every destination Secret holds it.',
  };
}

export function connectedCondition(lastUsedAt: string | null | undefined, now: Date): ConditionInput {
  const R = C.Connected.reasons;
  if (!lastUsedAt)
    return { type: C.Connected.type, status: 'False', reason: R.NeverUsed, message: 'No standalone AI Gateway has used the key yet.' };
  const age = now.getTime() - new Date(lastUsedAt).getTime();
  return age < heartbeatFreshMs
    ? { type: C.Connected.type, status: 'True', reason: R.HeartbeatRecent, message: `A gateway used the key at ${lastUsedAt}.` }
    : {
        type: C.Connected.type,
        status: 'False',
        reason: R.NoRecentHeartbeat,
        message: `The last heartbeat was at ${lastUsedAt}, 3 minutes ago or more; no gateway seems connected.`,
      };
}

export function computeStatus(
  k: CoderAIGatewayKey,
  changes: { conditions: Record<string, ConditionInput | undefined>; status: Partial<CoderAIGatewayKeyStatus> },
  now: Date,
): CoderAIGatewayKeyStatus {
  return {
    ...k.status,
    observedGeneration: k.metadata.generation,
    ...changes.status,
    conditions: nextConditions(k, changes.conditions, now) as CoderAIGatewayKeyStatus['conditions'],
  };
}
