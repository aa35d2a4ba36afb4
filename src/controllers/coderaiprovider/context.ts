// What the CoderAIProvider reconcile steps share: the controller dependencies, the caches they read, the
// shared knowledge of each control plane's Coder, and the resync period.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { Cache } from '../../runtime/cache.ts';
import type { CoderFacts } from '../shared/coder-facts.ts';
import type { ControllerDeps } from '../shared/deps.ts';

export interface ProviderContext extends ControllerDeps {
  caches: {
    providers: Cache<CoderAIProvider>;
    controlPlanes: Cache<CoderControlPlane>;
    secrets: Cache<V1Secret>;
  };
  facts: CoderFacts;
  resyncMs: number;
  /** The Coder id of what this object created, by object UID, for a reconcile on a cache that has not seen the status naming it. */
  createdIDs: Map<string, string>;
}
