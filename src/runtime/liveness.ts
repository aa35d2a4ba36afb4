// What /healthz reports. The process can be up, its probe port answering, and still be wedged: as
// leader it no longer renews its lease (so another replica may take over while this one still acts),
// or a reconcile never returns (its worker, and every key that waits for it, is stuck). Either means
// a restart helps; a slow API server or an unready cache does not, and is left to /readyz.
import type { ProbeResult } from './probes.ts';

/** A reconcile running longer than this is taken as hung: every call it makes has a shorter deadline. */
export const reconcileStuckAfterMs = 10 * 60_000;

export interface LivenessInputs {
  /** Present while this replica leads: when it last renewed the lease, and how long a lease lasts. */
  leader?: { renewedAt: number; leaseMs: number };
  /** The longest-running reconcile of each controller that has one in flight. */
  reconciles: { controller: string; runningMs: number }[];
  stuckAfterMs: number;
}

export function liveness(inputs: LivenessInputs, now = Date.now()): ProbeResult {
  const reasons: string[] = [];
  const { leader } = inputs;
  if (leader && now - leader.renewedAt > leader.leaseMs) {
    reasons.push(`leader lease not renewed for ${seconds(now - leader.renewedAt)} (a lease lasts ${seconds(leader.leaseMs)})`);
  }
  for (const { controller, runningMs } of inputs.reconciles) {
    if (runningMs > inputs.stuckAfterMs) {
      reasons.push(
        `controller ${controller}: a reconcile has been running for ${seconds(runningMs)} (limit ${seconds(inputs.stuckAfterMs)})`,
      );
    }
  }
  return reasons.length ? { ok: false, reasons } : { ok: true };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}
