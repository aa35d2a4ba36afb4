// The desired provisioner Deployment: `coder provisioner start` connecting to the control plane's
// status.url (the deploy guide's promise: provisioner pods connect to status.url), authenticated by the key Secret.
import type { V1Container, V1Deployment, V1EnvVar, V1PodSpec } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import type { CoderProvisioner } from '../../../../generated/types/coderprovisioner.ts';
import { fnv32a } from '../../../runtime/object-names.ts';
import { deploymentEnvelope } from '../../shared/workload/envelope.ts';
import { fromField, ifNonEmpty, podScheduling, unique } from '../../shared/workload/pod-spec.ts';
import { SpecError } from '../../shared/spec-check.ts';
import { keySecretRef, ownedMetadata, provisionerLabels, serviceAccountName, workloadName } from './names.ts';

const containerName = 'provisioner';
const defaultGracePeriodSeconds = 600;
/** Changes with the key, so that a new key rolls the pods (hashes its id: the material never leaves the Secret). */
export const keyChecksumAnnotation = 'checksum/provisioner-key';
const operatorEnv = ['CODER_URL', 'CODER_PROVISIONER_DAEMON_KEY'];

/**
 * Where the provisioner pods connect: the control plane's status.url (https on 443 with built-in TLS), not the plain
 * HTTP Service URL of the operator's own calls, which carry the operator token and skip TLS inside the cluster.
 */
export function podCoderURL(cp: CoderControlPlane): string {
  return cp.status!.url!;
}

export interface DeploymentInputs {
  /** podCoderURL of the control plane. */
  coderURL: string;
  /** The image when spec.image is unset: the control plane's spec.image or the default. */
  defaultImage: string;
  /** The id of the provisioner key in Coder: a new key has a new id, and the annotation rolls the pods. */
  keyID: string;
  /** The live pod template's kubectl.kubernetes.io/restartedAt, copied verbatim. */
  restartedAt?: string;
}

/** Throws SpecError when spec.extraEnv sets a variable twice or one the operator sets. */
export function buildDeployment(p: CoderProvisioner, inputs: DeploymentInputs): V1Deployment {
  const spec = p.spec ?? { controlPlaneRef: {} };
  const ref = keySecretRef(p);
  const extraEnv = spec.extraEnv ?? [];
  extraEnv.forEach((env, i) => {
    if (operatorEnv.includes(env.name)) throw new SpecError(`spec.extraEnv[${i}]`, `${env.name} is set by the operator; remove it`);
  });
  const env: V1EnvVar[] = unique(
    [
      { field: 'CODER_URL', item: { name: 'CODER_URL', value: inputs.coderURL } },
      {
        field: 'CODER_PROVISIONER_DAEMON_KEY',
        item: { name: 'CODER_PROVISIONER_DAEMON_KEY', valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } },
      },
      ...extraEnv.map(fromField<V1EnvVar>('spec.extraEnv')),
    ],
    (e) => e.name,
    'environment variable',
  );
  const container: V1Container = {
    name: containerName,
    image: spec.image || inputs.defaultImage,
    command: ['coder'],
    args: ['provisioner', 'start', ...(spec.extraArgs ?? [])],
    env,
    ...ifNonEmpty('resources', spec.resources),
    ...ifNonEmpty('securityContext', spec.securityContext),
  };
  const podSpec: V1PodSpec = {
    serviceAccountName: serviceAccountName(p),
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? defaultGracePeriodSeconds,
    ...podScheduling(spec),
    containers: [container],
  };
  return deploymentEnvelope({
    metadata: ownedMetadata(p, workloadName(p)),
    podLabels: provisionerLabels(p),
    replicas: spec.replicas,
    podAnnotations: { [keyChecksumAnnotation]: fnv32a(inputs.keyID) },
    restartedAt: inputs.restartedAt,
    podSpec,
  });
}
