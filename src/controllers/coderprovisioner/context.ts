// What the CoderProvisioner reconcile steps share: the controller dependencies and the caches they read.
import type { V1Deployment, V1Role, V1RoleBinding, V1Secret, V1ServiceAccount } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import type { Cache } from '../../runtime/cache.ts';
import type { ControllerDeps } from '../shared/deps.ts';

type Cached<T> = Cache<T & { metadata?: { name?: string; namespace?: string } }>;

export interface ProvisionerContext extends ControllerDeps {
  caches: {
    provisioners: Cache<CoderProvisioner>;
    controlPlanes: Cache<CoderControlPlane>;
    secrets: Cached<V1Secret>;
    deployments: Cached<V1Deployment>;
    serviceAccounts: Cached<V1ServiceAccount>;
    roles: Cached<V1Role>;
    roleBindings: Cached<V1RoleBinding>;
  };
}
