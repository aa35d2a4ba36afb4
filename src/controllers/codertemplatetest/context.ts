// What the template-test reconcile works with: the shared deps, its caches, and the per-object memory of 429s.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { Cache } from '../../runtime/cache.ts';
import type { ControllerDeps } from '../shared/deps.ts';
import type { RateLimitMemory } from './rate-limit-memory.ts';

export interface TemplateTestContext extends ControllerDeps {
  caches: {
    tests: Cache<CoderTemplateTest>;
    controlPlanes: Cache<CoderControlPlane>;
    secrets: Cache<V1Secret>;
  };
  rateLimits: RateLimitMemory;
  /** Cleanup that found Coder unavailable, or serving no such call, calls again only after its 60 s, whatever event comes first. */
  cleanupPauses: RateLimitMemory;
  random?: () => number;
}
