// The writes (and reads) the operator made, from the API server's audit log: what the benches print and
// the quiet periods count. Lease renewals (leader election, in the operator's own namespace) are not counted.
import { writeVerbs, type AuditEvent } from './audit.ts';
import type { ControlPlane } from './control-plane.ts';
import { operatorNamespace, operatorServiceAccount } from './operator.ts';

export const operatorUser = `system:serviceaccount:${operatorNamespace}:${operatorServiceAccount}`;

/** The operator's writes received from `since` (until `until`), without lease renewals. */
export async function operatorWrites(cp: ControlPlane, since: Date, until?: Date): Promise<AuditEvent[]> {
  const events = await cp.auditEvents({ username: operatorUser, since, ...(until ? { until } : {}), verbs: writeVerbs });
  return events.filter((e) => e.objectRef?.resource !== 'leases');
}

/** The operator's reads (get and list; watches are not counted) received from `since` until `until`. */
export async function operatorReads(cp: ControlPlane, since: Date, until: Date): Promise<AuditEvent[]> {
  const events = await cp.auditEvents({ username: operatorUser, since, until, verbs: ['get', 'list'] });
  return events.filter((e) => e.objectRef?.resource !== 'leases');
}

/** `verb resource[/subresource]` of a request (`verb path` of one that names no resource, such as discovery). */
export function writeKind(e: AuditEvent): string {
  if (!e.objectRef?.resource) return `${e.verb} ${e.requestURI.split('?')[0]}`;
  return `${e.verb} ${e.objectRef.resource}${e.objectRef.subresource ? `/${e.objectRef.subresource}` : ''}`;
}

/** Writes counted by verb and resource, for example `create secrets=3, patch coderaiproviders/status=10`. */
export function byResource(events: AuditEvent[]): string {
  const counts: Record<string, number> = {};
  for (const e of events) counts[writeKind(e)] = (counts[writeKind(e)] ?? 0) + 1;
  return Object.entries(counts)
    .sort()
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

/**
 * Server time by verb and resource, from the audit log (received → response complete): `patch roles 1000 ×
 * p50 41 ms, 52.3 s in all; …`, the most time first. What the API server spent on each kind of request.
 */
export function serverTimeByKind(events: AuditEvent[]): string {
  const byKind = new Map<string, number[]>();
  for (const e of events) {
    const ms = Date.parse(e.stageTimestamp) - Date.parse(e.requestReceivedTimestamp);
    byKind.set(writeKind(e), [...(byKind.get(writeKind(e)) ?? []), ms]);
  }
  return [...byKind]
    .map(([kind, ms]) => ({ kind, ms: ms.sort((a, b) => a - b), total: ms.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total)
    .map(({ kind, ms, total }) => `${kind} ${ms.length} × p50 ${ms[Math.floor(ms.length / 2)]} ms, ${(total / 1000).toFixed(1)} s in all`)
    .join('; ');
}
