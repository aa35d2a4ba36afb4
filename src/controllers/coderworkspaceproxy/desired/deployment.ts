// The desired proxy Deployment: one `workspace-proxy` container running `coder wsproxy server`, with the
// primary access URL and the proxy session token (a secretKeyRef, never a value) ahead of spec.extraEnv.
import type { V1Container, V1Deployment, V1EnvVar } from '@kubernetes/client-node';
import type { SecretKeySelector } from '../../../../generated/types/common.ts';
import type { CoderWorkspaceProxy } from '../../../../generated/types/coderworkspaceproxy.ts';
import { deploymentEnvelope } from '../../shared/workload/envelope.ts';
import { fromField, ifNonEmpty, unique, type FromField } from '../../shared/workload/pod-spec.ts';
import { defaultImage, ownedMetadata, proxyHttpPort, proxyLabels } from './names.ts';

const containerName = 'workspace-proxy';
export const primaryAccessUrlEnv = 'CODER_PRIMARY_ACCESS_URL';
export const proxySessionTokenEnv = 'CODER_PROXY_SESSION_TOKEN';

export interface DeploymentInputs {
  /** The Coder URL the proxy connects to. */
  primaryAccessURL: string;
  /** The Secret and key that hold the proxy session token. */
  token: Required<SecretKeySelector>;
  /** The live pod template's kubectl.kubernetes.io/restartedAt, copied verbatim. */
  restartedAt?: string;
}

/** The container's env: the two operator variables, then spec.extraEnv; a name used twice is a SpecError naming the field. */
function proxyEnv(proxy: CoderWorkspaceProxy, inputs: DeploymentInputs): V1EnvVar[] {
  const own: FromField<V1EnvVar>[] = [
    { field: 'spec.primaryAccessURL', item: { name: primaryAccessUrlEnv, value: inputs.primaryAccessURL } },
    {
      field: 'the proxy token',
      item: { name: proxySessionTokenEnv, valueFrom: { secretKeyRef: { name: inputs.token.name, key: inputs.token.key } } },
    },
  ];
  return unique([...own, ...(proxy.spec?.extraEnv ?? []).map(fromField<V1EnvVar>('spec.extraEnv'))], (e) => e.name, 'environment variable');
}

export function buildDeployment(proxy: CoderWorkspaceProxy, inputs: DeploymentInputs): V1Deployment {
  const spec = proxy.spec ?? {};
  const container: V1Container = {
    name: containerName,
    image: spec.image || defaultImage,
    args: [
      'wsproxy',
      'server',
      `--http-address=0.0.0.0:${proxyHttpPort}`,
      ...(spec.derpOnly ? ['--derp-only'] : []),
      ...(spec.extraArgs ?? []),
    ],
    env: proxyEnv(proxy, inputs),
    ports: [{ name: 'http', containerPort: proxyHttpPort, protocol: 'TCP' }],
  };
  return deploymentEnvelope({
    metadata: ownedMetadata(proxy),
    podLabels: proxyLabels(proxy),
    replicas: spec.replicas,
    restartedAt: inputs.restartedAt,
    podSpec: { ...ifNonEmpty('imagePullSecrets', spec.imagePullSecrets), containers: [container] },
  });
}
