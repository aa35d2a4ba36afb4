// The Ready summary and the next status of an MCP server (pure): Ready names the first problem a reconcile
// met, in the order the schema lists Ready's reasons, or Available.
import { CoderMCPServerConditions as C, type CoderMCPServer, type CoderMCPServerStatus } from '../../../generated/types/codermcpserver.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { nextConditions } from '../shared/step-outcome.ts';

export type ReadyReason = (typeof C.Ready.reasons)[keyof typeof C.Ready.reasons];

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
    message: 'The MCP server is registered in Coder as spec describes.',
  };
}

export function computeStatus(
  s: CoderMCPServer,
  changes: { conditions: Record<string, ConditionInput | undefined>; status: Partial<CoderMCPServerStatus> },
  now: Date,
): CoderMCPServerStatus {
  return {
    ...s.status,
    observedGeneration: s.metadata.generation,
    ...changes.status,
    conditions: nextConditions(s, changes.conditions, now) as CoderMCPServerStatus['conditions'],
  };
}
