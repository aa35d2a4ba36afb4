// The desired Coder Deployment: one `coder` container with its env, certificates, probes and scheduling.
import type { V1Container, V1ContainerPort, V1Deployment, V1PodSpec, V1Probe } from '@kubernetes/client-node';
import type { CoderControlPlane, CoderControlPlaneSpecLivenessProbe } from '../../../generated/types/codercontrolplane.ts';
import { certVolumes, type FromField } from './cert-volumes.ts';
import { buildCoderEnv } from './coder-env.ts';
import { coderHttpPort, coderHttpsPort, controlPlaneLabels, defaultImage, ownedMetadata, serviceAccountName, tlsEnabled } from './names.ts';
import { SpecError } from './spec-error.ts';

export { SpecError };

export const coderContainerName = 'coder';
/** Set by `kubectl rollout restart`; the only template annotation the operator keeps. */
export const restartedAtAnnotation = 'kubectl.kubernetes.io/restartedAt';

export interface DeploymentInputs {
  /** True when an existing envFrom source defines CODER_ACCESS_URL (the caller reads the sources). */
  accessUrlFromEnvFrom: boolean;
  /** The live pod template's kubectl.kubernetes.io/restartedAt, copied verbatim. */
  restartedAt?: string;
}

/**
 * The Deployment to apply. The pod template is the operator's alone: its only annotation is a
 * restartedAt carried over from the live object, so a `kubectl rollout restart` survives reconciles.
 */
export function buildDeployment(cp: CoderControlPlane, inputs: DeploymentInputs): V1Deployment {
  const spec = cp.spec ?? {};
  const labels = controlPlaneLabels(cp);
  const certs = certVolumes(cp);
  const volumes = unique([...certs.volumes, ...(spec.volumes ?? []).map(fromField('spec.volumes'))], (v) => v.name, 'volume name');
  const volumeMounts = unique([...certs.volumeMounts, ...(spec.volumeMounts ?? []).map(fromField('spec.volumeMounts'))], (m) => m.mountPath, 'mount path');

  const container: V1Container = {
    name: coderContainerName,
    image: spec.image || defaultImage,
    args: [`--http-address=0.0.0.0:${coderHttpPort}`, ...(spec.extraArgs ?? [])],
    env: buildCoderEnv(cp, inputs.accessUrlFromEnvFrom),
    ...ifNonEmpty('envFrom', spec.envFrom),
    ports: containerPorts(cp),
    ...ifNonEmpty('resources', spec.resources),
    ...ifNonEmpty('securityContext', spec.securityContext),
    ...ifNonEmpty('volumeMounts', volumeMounts),
    ...(spec.readinessProbe?.enabled !== false ? { readinessProbe: healthProbe(spec.readinessProbe) } : {}),
    ...(spec.livenessProbe?.enabled === true ? { livenessProbe: healthProbe(spec.livenessProbe) } : {}),
  };
  const podSpec: V1PodSpec = {
    serviceAccountName: serviceAccountName(cp),
    ...ifNonEmpty('imagePullSecrets', spec.imagePullSecrets),
    ...ifNonEmpty('nodeSelector', spec.nodeSelector as Record<string, string> | undefined),
    ...ifNonEmpty('tolerations', spec.tolerations),
    ...ifNonEmpty('topologySpreadConstraints', spec.topologySpreadConstraints),
    ...ifNonEmpty('affinity', spec.affinity),
    ...ifNonEmpty('securityContext', spec.podSecurityContext),
    containers: [container],
    ...ifNonEmpty('volumes', volumes),
  };
  return structuredClone({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: ownedMetadata(cp),
    spec: {
      replicas: spec.replicas ?? 1,
      selector: { matchLabels: { ...labels } },
      template: {
        metadata: {
          labels: { ...labels },
          ...(inputs.restartedAt !== undefined ? { annotations: { [restartedAtAnnotation]: inputs.restartedAt } } : {}),
        },
        spec: podSpec,
      },
    },
  });
}

/** `http` 8080, and `https` 8443 with built-in TLS. The protocol is set because it is part of the list's merge key. */
export function containerPorts(cp: CoderControlPlane): V1ContainerPort[] {
  const ports: V1ContainerPort[] = [{ name: 'http', containerPort: coderHttpPort, protocol: 'TCP' }];
  if (tlsEnabled(cp)) ports.push({ name: 'https', containerPort: coderHttpsPort, protocol: 'TCP' });
  return ports;
}

/** HTTP GET /healthz on port `http`, with the ProbeSpec values or their defaults (10 s period, 1 s timeout, 1 success, 3 failures). */
export function healthProbe(probe: CoderControlPlaneSpecLivenessProbe | undefined): V1Probe {
  return {
    httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
    ...(probe?.initialDelaySeconds ? { initialDelaySeconds: probe.initialDelaySeconds } : {}),
    periodSeconds: probe?.periodSeconds ?? 10,
    timeoutSeconds: probe?.timeoutSeconds ?? 1,
    successThreshold: probe?.successThreshold ?? 1,
    failureThreshold: probe?.failureThreshold ?? 3,
  };
}

function fromField<T>(list: string) {
  return (item: T, i: number): FromField<T> => ({ field: `${list}[${i}]`, item });
}

/**
 * The items, after checking that no two share a key: the pod would be rejected, and a server-side
 * apply refuses two list entries with one merge key (volume name, mount path).
 */
function unique<T>(entries: FromField<T>[], keyOf: (item: T) => string, what: string): T[] {
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
function ifNonEmpty<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  if (value === undefined || value === null) return {};
  if (Array.isArray(value) ? value.length === 0 : typeof value === 'object' && Object.keys(value).length === 0) return {};
  return { [key]: value } as { [P in K]?: V };
}
