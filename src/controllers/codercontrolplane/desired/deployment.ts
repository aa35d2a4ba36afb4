// The desired Coder Deployment: one `coder` container with its env, certificates, probes and scheduling.
import type { V1Container, V1ContainerPort, V1Deployment, V1PodSpec, V1Probe } from '@kubernetes/client-node';
import type { CoderControlPlane, CoderControlPlaneSpecLivenessProbe } from '../../../../generated/types/codercontrolplane.ts';
import { tlsEnabled } from '../../../controlplane/endpoints.ts';
import { deploymentEnvelope } from '../../shared/workload/envelope.ts';
import { fromField, ifNonEmpty, podScheduling, unique } from '../../shared/workload/pod-spec.ts';
import { buildCoderEnv } from './env.ts';
import { coderHttpPort, coderHttpsPort, controlPlaneLabels, defaultImage, ownedMetadata, serviceAccountName } from './names.ts';
import { certVolumes } from './volumes.ts';

const coderContainerName = 'coder';

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
  const certs = certVolumes(cp);
  const volumes = unique([...certs.volumes, ...(spec.volumes ?? []).map(fromField('spec.volumes'))], (v) => v.name, 'volume name');
  const volumeMounts = unique(
    [...certs.volumeMounts, ...(spec.volumeMounts ?? []).map(fromField('spec.volumeMounts'))],
    (m) => m.mountPath,
    'mount path',
  );

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
    ...podScheduling(spec),
    containers: [container],
    ...ifNonEmpty('volumes', volumes),
  };
  return deploymentEnvelope({
    metadata: ownedMetadata(cp),
    podLabels: controlPlaneLabels(cp),
    replicas: spec.replicas,
    restartedAt: inputs.restartedAt,
    podSpec,
  });
}

/** `http` 8080, and `https` 8443 with built-in TLS. The protocol is set because it is part of the list's merge key. */
function containerPorts(cp: CoderControlPlane): V1ContainerPort[] {
  const ports: V1ContainerPort[] = [{ name: 'http', containerPort: coderHttpPort, protocol: 'TCP' }];
  if (tlsEnabled(cp)) ports.push({ name: 'https', containerPort: coderHttpsPort, protocol: 'TCP' });
  return ports;
}

/** HTTP GET /healthz on port `http`, with the ProbeSpec values or their defaults (10 s period, 1 s timeout, 1 success, 3 failures). */
function healthProbe(probe: CoderControlPlaneSpecLivenessProbe | undefined): V1Probe {
  return {
    httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
    ...(probe?.initialDelaySeconds ? { initialDelaySeconds: probe.initialDelaySeconds } : {}),
    periodSeconds: probe?.periodSeconds ?? 10,
    timeoutSeconds: probe?.timeoutSeconds ?? 1,
    successThreshold: probe?.successThreshold ?? 1,
    failureThreshold: probe?.failureThreshold ?? 3,
  };
}
