// What the CoderAIGatewayKey reconcile steps share: the controller dependencies, the caches they read, the
// shared knowledge of each control plane's Coder, the resync period, and keys minted but not yet written.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderAIGatewayKey } from '../../../generated/types/coderaigatewaykey.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { Cache } from '../../runtime/cache.ts';
import type { CoderFacts } from '../shared/coder-facts.ts';
import type { ControllerDeps } from '../shared/deps.ts';

/** A key Coder returned that not every destination holds yet; Coder never shows it again, so it stays in memory only. */
export interface PendingKey {
  id: string;
  name: string;
  key: string;
  keyPrefix: string;
  createdAt: string;
  rotation: number;
}

export interface GatewayKeyContext extends ControllerDeps {
  caches: {
    keys: Cache<CoderAIGatewayKey>;
    controlPlanes: Cache<CoderControlPlane>;
    secrets: Cache<V1Secret>;
  };
  facts: CoderFacts;
  resyncMs: number;
  /** By object UID. */
  pending: Map<string, PendingKey>;
}
