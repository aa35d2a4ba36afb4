// How the operator reaches a control plane's Coder: a client on its in-cluster Service URL (plain HTTP,
// same-origin redirects only) carrying the operator token, for controllers, the aggregated API and MCP alike.
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import type { CoderCallObserver } from '../coder/call-outcome.ts';
import { CoderClient } from '../coder/client.ts';
import type { Logger } from '../runtime/logger.ts';
import { operatorApiURL } from './endpoints.ts';

/** A Coder client for `cp` with `token`. */
export type CoderClientFor = (cp: CoderControlPlane, token: string) => CoderClient;

/**
 * Coder clients on the control plane's Service URL, or on `urlOverride` (--test-only-coder-url, loopback
 * only) for every control plane; `timeoutMs` per call (the client's default when unset); `onCall` told of
 * every attempt (the operator's Coder API metrics).
 */
export function coderClientFactory(logger: Logger, urlOverride?: string, timeoutMs?: number, onCall?: CoderCallObserver): CoderClientFor {
  return (cp, token) =>
    new CoderClient({
      baseURL: urlOverride ?? operatorApiURL(cp),
      token,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(onCall ? { onCall } : {}),
      logger: logger.child({ coderControlPlane: `${cp.metadata.namespace}/${cp.metadata.name}` }),
    });
}
