// The Connected condition of an AI Gateway key, from its heartbeat (pure); informational, not part of Ready.
import { CoderAIGatewayKeyConditions as C } from '../../../generated/types/coderaigatewaykey.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';

/** A heartbeat younger than this means a gateway is connected (Coder refreshes it about every 60 s). */
export const heartbeatFreshMs = 3 * 60_000;

export function connectedCondition(lastHeartbeatAt: string | undefined, now: Date): ConditionOf<typeof C.Connected> {
  const R = C.Connected.reasons;
  if (!lastHeartbeatAt)
    return { type: C.Connected.type, status: 'False', reason: R.NeverUsed, message: 'No standalone AI Gateway has used the key yet.' };
  const age = now.getTime() - new Date(lastHeartbeatAt).getTime();
  return age < heartbeatFreshMs
    ? { type: C.Connected.type, status: 'True', reason: R.HeartbeatRecent, message: `A gateway used the key at ${lastHeartbeatAt}.` }
    : {
        type: C.Connected.type,
        status: 'False',
        reason: R.NoRecentHeartbeat,
        message: `The last heartbeat was at ${lastHeartbeatAt}, 3 minutes ago or more; no gateway seems connected.`,
      };
}
