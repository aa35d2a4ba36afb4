// The Coder behind a namespace, for the workspace and template tools: the one CoderControlPlane there
// with operator access, its operator token, and a Coder client on its in-cluster Service URL (the
// shared resolveControlPlane rule, same-origin redirects only). Read with the process's credentials (the
// operator's over HTTP, the kubeconfig's over stdio): the tool has already checked that the caller may use
// coderworkspaces/codertemplates there.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlaneList } from '../../generated/types/codercontrolplane.ts';
import type { CoderClient } from '../coder/client.ts';
import { servingControlPlane } from '../controlplane/serving-control-plane.ts';
import { operatorTokenSecretName } from '../controlplane/endpoints.ts';
import { resolveControlPlane } from '../controlplane/access.ts';
import type { CoderClientFor } from '../controlplane/coder-client.ts';
import { isNotFound, type KubeHttp } from '../runtime/kube-http.ts';
import { resourcePath } from './tool.ts';

/** Why a namespace has no Coder to call, as the tool's error. */
export class NoUsableControlPlaneError extends Error {
  override readonly name = 'NoUsableControlPlaneError';
}

export function controlPlaneCoder(kube: KubeHttp, coderClient: CoderClientFor): (namespace: string) => Promise<CoderClient> {
  return async (namespace) => {
    const list = await kube.json<CoderControlPlaneList>('GET', resourcePath('coder.com/v1alpha1', 'codercontrolplanes', namespace));
    const choice = servingControlPlane(list.items);
    if (choice.kind === 'none') {
      throw new NoUsableControlPlaneError(
        `no CoderControlPlane in namespace "${namespace}" has operator access (status.operatorAccessReady true and a status.url)`,
      );
    }
    if (choice.kind === 'several') {
      const names = choice.names.join(', ');
      throw new NoUsableControlPlaneError(
        `namespace "${namespace}" has several CoderControlPlanes with operator access (${names}); keep one per namespace`,
      );
    }
    const cp = choice.controlPlane;
    const secretName = operatorTokenSecretName(cp);
    const secret = await kube.json<V1Secret>('GET', resourcePath('v1', 'secrets', namespace, secretName)).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    const access = resolveControlPlane({ coderClient }, { controlPlanes: { get: () => cp }, secrets: { get: () => secret } }, namespace, {
      name: cp.metadata.name!,
    });
    if (!access.usable) throw new NoUsableControlPlaneError(access.message);
    return access.client;
  };
}
