// A new object's first status, held back a moment while all it would say is "not ready yet": the condition a
// kind names (a control plane's DeploymentReady, False until its new Deployment has a ready pod) is the only one
// that is False. Often the pod is ready within a second; the one status write that says Ready then replaces two
// (Pending, then Ready), which counts when a thousand objects are created at once. The hold is short and
// bounded: the reconcile runs again when it ends (or sooner, on the child's event) and then writes whatever
// the status is. A status that reports a problem is never held.
import type { Condition } from '../../../runtime/conditions.ts';
import { readyType, reconcilingType, stalledType } from './readiness.ts';

export class FirstStatusHold {
  readonly ms: number;
  /** UID → when a reconcile first held its status back (monotonic ms), oldest first. */
  private readonly heldSince = new Map<string, number>();
  private readonly clock: () => number;

  constructor(ms: number, clock: () => number = () => performance.now()) {
    this.ms = ms;
    this.clock = clock;
  }

  /**
   * How long the first status of the object `uid` is still held back (0: write it now), given that it would
   * be written with `next` in place of `current` (the object's conditions, none before its first status).
   */
  holdMs(uid: string | undefined, current: readonly Condition[] | undefined, next: readonly Condition[], waitsFor: string): number {
    if (!uid || current?.length || !onlyWaitingFor(next, waitsFor)) return 0;
    const now = this.clock();
    this.forgetOlderThan(now - 2 * this.ms);
    const since = this.heldSince.get(uid);
    if (since === undefined) {
      this.heldSince.set(uid, now);
      return this.ms;
    }
    return Math.max(0, since + this.ms - now);
  }

  /** Entries of objects written or deleted since; the map is in insertion order, so the sweep stops at the first young one. */
  private forgetOlderThan(limit: number): void {
    for (const [uid, since] of this.heldSince) {
      if (since > limit) return;
      this.heldSince.delete(uid);
    }
  }
}

/**
 * `waitsFor` is present and not True, and no other condition reports a problem: none is False (Unknown, not
 * decided yet, is no problem) but the summary conditions `waitsFor` holds back, and Stalled is not True.
 */
function onlyWaitingFor(conditions: readonly Condition[], waitsFor: string): boolean {
  return (
    conditions.some((c) => c.type === waitsFor && c.status !== 'True') &&
    conditions.every((c) => {
      if (c.type === waitsFor || c.type === readyType || c.type === reconcilingType) return true;
      if (c.type === stalledType) return c.status !== 'True';
      return c.status !== 'False';
    })
  );
}
