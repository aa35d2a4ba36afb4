// The Coder behind a namespace, for the workspace and template tools: the one CoderControlPlane there
// with operator access, its operator token, and a Coder client on its in-cluster Service URL (the
// shared resolveControlPlane rule, same-origin redirects only). Read with the operator's credentials:
// the tool has already checked that the caller may use coderworkspaces/codertemplates there.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane, CoderControlPlaneList } from '../../generated/types/codercontrolplane.ts';
import type { CoderClient } from '../coder/client.ts';
import { operatorTokenSecretName } from '../controllers/shared/control-plane-endpoints.ts';
import { resolveControlPlane } from '../controllers/shared/control-plane-ref.ts';
import type { ControllerDeps } from '../controllers/shared/deps.ts';
import { isNotFound, type KubeHttp } from '../runtime/kube-http.ts';
import { resourcePath } from './tool.ts';

/** Why a namespace has no Coder to call, as the tool's error. */
export class NoUsableControlPlaneError extends Error {
  override readonly name = 'NoUsableControlPlaneError';
}

export function hasOperatorAccess(cp: CoderControlPlane): boolean {
  return (
    !cp.metadata.deletionTimestamp &&
    cp.spec?.operatorAccess?.disabled !== true &&
    cp.status?.operatorAccessReady === true &&
    Boolean(cp.status.operatorTokenSecretRef) &&
    Boolean(cp.status.url?.trim())
  );
}

export function controlPlaneCoder(kube: KubeHttp, coderClient: ControllerDeps['coderClient']): (namespace: string) => Promise<CoderClient> {
  return async (namespace) => {
    const list = await kube.json<CoderControlPlaneList>('GET', resourcePath('coder.com/v1alpha1', 'codercontrolplanes', namespace));
    const candidates = list.items.filter(hasOperatorAccess);
    if (candidates.length === 0) {
      throw new NoUsableControlPlaneError(
        `no CoderControlPlane in namespace "${namespace}" has operator access (status.operatorAccessReady true and a status.url)`,
      );
    }
    if (candidates.length > 1) {
      const names = candidates.map((cp) => cp.metadata.name).join(', ');
      throw new NoUsableControlPlaneError(
        `namespace "${namespace}" has several CoderControlPlanes with operator access (${names}); keep one per namespace`,
      );
    }
    const cp = candidates[0]!;
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
