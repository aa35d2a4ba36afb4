// CoderTemplateTest controller wiring: the tests themselves, and the control plane each one names (through a
// field index on spec.controlPlaneRef.name), so a control-plane change resumes waiting tests before their poll.
// It owns no Kubernetes objects: everything a test makes is in Coder.
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { coderTemplateTestResource } from '../../../generated/clients/codertemplatetest.ts';
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { reconcilerLoadingKind } from '../shared/reconcile/kind.ts';
import { watchReferences } from '../shared/reference-watches.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import type { TemplateTestContext } from './context.ts';
import { RateLimitMemory } from './rate-limit-memory.ts';

const controllerName = 'codertemplatetest';

export const setup: ControllerSetup = (manager, deps) => {
  const tests = manager.cache<CoderTemplateTest>(coderTemplateTestResource);
  const ctx: TemplateTestContext = {
    ...deps,
    caches: {
      tests,
      controlPlanes: manager.cache(coderControlPlaneResource),
      secrets: manager.cache(builtinResources.secret),
    },
    rateLimits: new RateLimitMemory(),
    cleanupPauses: new RateLimitMemory(),
  };
  const builder = manager.controller(controllerName).for(coderTemplateTestResource);
  return watchReferences(builder, tests, { controlPlanes: (t) => [t.spec?.controlPlaneRef?.name] }).build(
    reconcilerLoadingKind(ctx, async () => (await import('./reconcile.ts')).templateTestKind),
  );
};
