// What the CoderControlPlane reconcile steps share: the controller dependencies and the caches they read.
import type {
  V1Deployment,
  V1Ingress,
  V1Namespace,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1Service,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { Cache } from '../../runtime/cache.ts';
import type { ResourceKind } from '../../runtime/resource.ts';
import type { ControllerDeps } from '../shared/deps.ts';
import type { FirstStatusHold } from '../shared/reconcile/first-status.ts';
import type { ControlPlaneDependent } from './operator-roles.ts';

type Cached<T> = Cache<T & { metadata?: { name?: string; namespace?: string } }>;

export interface ControlPlaneContext extends ControllerDeps {
  firstStatusHold?: FirstStatusHold;
  caches: {
    controlPlanes: Cache<CoderControlPlane>;
    secrets: Cached<V1Secret>;
    deployments: Cached<V1Deployment>;
    services: Cached<V1Service>;
    serviceAccounts: Cached<V1ServiceAccount>;
    roles: Cached<V1Role>;
    roleBindings: Cached<V1RoleBinding>;
    ingresses: Cached<V1Ingress>;
    namespaces: Cached<V1Namespace>;
    /** The objects of each kind in operator-roles.ts ownerDependentKinds. */
    ownerDependents: ReadonlyMap<ResourceKind, Cache<ControlPlaneDependent>>;
  };
}
