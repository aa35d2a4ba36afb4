// How long a control plane waits between the operator's two writes that bring it to Ready: from its Deployment's
// apply (the first reconcile) to its last status write (Ready, once the Deployment has a ready pod): the time
// the Deployment controller, the scheduler and kwok take, and the wait in the operator's queue after that.
import type { AuditEvent } from '../../harness/audit.ts';

export function deploymentToReady(writes: AuditEvent[]): string {
  const applied = new Map<string, number>();
  const lastStatus = new Map<string, number>();
  for (const e of writes) {
    const key = `${e.objectRef?.namespace}/${e.objectRef?.name}`;
    const at = Date.parse(e.requestReceivedTimestamp);
    if (e.objectRef?.resource === 'deployments') applied.set(key, Math.min(at, applied.get(key) ?? at));
    if (e.objectRef?.resource === 'codercontrolplanes' && e.objectRef.subresource === 'status')
      lastStatus.set(key, Math.max(at, lastStatus.get(key) ?? at));
  }
  const waits = [...applied].flatMap(([key, at]) => (lastStatus.has(key) ? [lastStatus.get(key)! - at] : [])).sort((a, b) => a - b);
  if (!waits.length) return 'none';
  const at = (q: number) => (waits[Math.min(waits.length - 1, Math.floor(q * waits.length))]! / 1000).toFixed(1);
  return `p10 ${at(0.1)} s, p50 ${at(0.5)} s, p90 ${at(0.9)} s (${waits.length} control planes)`;
}
