// Pieces of the Deployments the operator builds (control plane, provisioners, workspace proxies): the
// scheduling fields a spec passes through, lists without two entries of one key, fields set only when
// not empty, the restart annotation `kubectl rollout restart` writes, and the Secrets a pod template hands on.
import type {
  V1Affinity,
  V1Deployment,
  V1LocalObjectReference,
  V1PodSecurityContext,
  V1PodSpec,
  V1Toleration,
  V1TopologySpreadConstraint,
} from '@kubernetes/client-node';
import { SpecError } from '../spec-check.ts';

/** Set by `kubectl rollout restart`; the only pod template annotation the operator carries over. */
export const restartedAtAnnotation = 'kubectl.kubernetes.io/restartedAt';

/** The restartedAt of a live Deployment's pod template, to carry over so a rollout restart survives reconciles. */
export function liveRestartedAt(
  live: { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } } | undefined,
): string | undefined {
  return live?.spec?.template?.metadata?.annotations?.[restartedAtAnnotation];
}

/** An item of a list in the spec, with the path of the field it came from, for SpecError messages. */
export interface FromField<T> {
  field: string;
  item: T;
}

export function fromField<T>(list: string) {
  return (item: T, i: number): FromField<T> => ({ field: `${list}[${i}]`, item });
}

/**
 * The items, after checking that no two share a key: the pod would be rejected, and a server-side
 * apply refuses two list entries with one merge key (volume name, mount path).
 */
export function unique<T>(entries: FromField<T>[], keyOf: (item: T) => string, what: string): T[] {
  const seen = new Map<string, string>();
  for (const { field, item } of entries) {
    const key = keyOf(item);
    const other = seen.get(key);
    if (other !== undefined) throw new SpecError(field, `${what} "${key}" is already used by ${other}; choose another`);
    seen.set(key, field);
  }
  return entries.map((e) => e.item);
}

/** `{ [key]: value }` when value is a non-empty array or object, else nothing: SSA should not own empty fields. */
export function ifNonEmpty<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  if (value === undefined || value === null) return {};
  if (Array.isArray(value) ? value.length === 0 : typeof value === 'object' && Object.keys(value).length === 0) return {};
  return { [key]: value } as { [P in K]?: V };
}

/** The scheduling and pod-level fields every kind's spec passes through to its pods unchanged. */
export interface PodSchedulingSpec {
  imagePullSecrets?: V1LocalObjectReference[];
  nodeSelector?: { [key: string]: string | undefined };
  tolerations?: V1Toleration[];
  topologySpreadConstraints?: V1TopologySpreadConstraint[];
  affinity?: V1Affinity;
  podSecurityContext?: V1PodSecurityContext;
}

export function podScheduling(spec: PodSchedulingSpec): Partial<V1PodSpec> {
  return {
    ...ifNonEmpty('imagePullSecrets', spec.imagePullSecrets),
    ...ifNonEmpty('nodeSelector', spec.nodeSelector as Record<string, string> | undefined),
    ...ifNonEmpty('tolerations', spec.tolerations),
    ...ifNonEmpty('topologySpreadConstraints', spec.topologySpreadConstraints),
    ...ifNonEmpty('affinity', spec.affinity),
    ...ifNonEmpty('securityContext', spec.podSecurityContext),
  };
}

/** The names of the Secrets a pod template hands to its containers (env, envFrom, volumes). */
export function secretsReferencedBy(deployment: V1Deployment | undefined): Set<string> {
  const names = new Set<string>();
  const pod = deployment?.spec?.template?.spec;
  for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])]) {
    for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef?.name) names.add(e.valueFrom.secretKeyRef.name);
    for (const s of c.envFrom ?? []) if (s.secretRef?.name) names.add(s.secretRef.name);
  }
  for (const v of pod?.volumes ?? []) if (v.secret?.secretName) names.add(v.secret.secretName);
  return names;
}
