// The metadata of a served object, built from Coder's answer only: Kubernetes-only
// metadata (labels set by a client, managedFields, ...) is never stored, so never returned.
import { createHash } from 'node:crypto';
import type { AggregatedObject } from '../../../generated/aggregated/types.ts';

/** metav1.Time: RFC 3339 in whole seconds, UTC. */
export function kubeTime(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || date.getTime() <= 0) return undefined;
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Labels a client may select on: the name's parts, so `-l aggregation.coder.com/owner=alice` works. */
export function nameLabels(parts: Record<string, string | undefined>): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(parts))
    if (v && /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(v)) labels[`aggregation.coder.com/${k}`] = v;
  return labels;
}

/** The full SHA-256 of the object without its resourceVersion, as [N] does: any change in spec or status changes it. */
export function withFingerprint<T extends AggregatedObject>(obj: T): T {
  const { resourceVersion: _, ...metadata } = obj.metadata;
  const digest = createHash('sha256')
    .update(JSON.stringify({ ...obj, metadata }))
    .digest('hex');
  obj.metadata.resourceVersion = digest;
  return obj;
}
