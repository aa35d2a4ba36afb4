// What the CoderWorkspaceProxy reconcile steps share: the controller dependencies and the caches they read.
import type { V1Deployment, V1Secret, V1Service } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import type { Cache } from '../../runtime/cache.ts';
import type { ControllerDeps } from '../shared/deps.ts';

export interface ProxyContext extends ControllerDeps {
  caches: {
    proxies: Cache<CoderWorkspaceProxy>;
    controlPlanes: Cache<CoderControlPlane>;
    secrets: Cache<V1Secret>;
    deployments: Cache<V1Deployment>;
    services: Cache<V1Service>;
  };
}
