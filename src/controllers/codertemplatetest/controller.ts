// CoderTemplateTest controller wiring: the tests themselves, and the control plane each one names (through a
// field index on spec.controlPlaneRef.name), so a control-plane change resumes waiting tests before their poll.
// It owns no Kubernetes objects: everything a test makes is in Coder.
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { coderTemplateTestResource } from '../../../generated/clients/codertemplatetest.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import { requestKey } from '../../runtime/controller.ts';
import { builtinResources } from '../../runtime/resource.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import type { TemplateTestContext } from './context.ts';
import { RateLimitMemory } from './rate-limit-memory.ts';
import { reconcileTemplateTest } from './reconcile.ts';

const controllerName = 'codertemplatetest';
const controlPlaneRefIndex = 'control-plane-ref';

export const setup: ControllerSetup = (manager, deps) => {
  const tests = manager.cache<CoderTemplateTest>(coderTemplateTestResource);
  tests.addIndex(controlPlaneRefIndex, (t) =>
    t.spec?.controlPlaneRef?.name ? [`${t.metadata.namespace}/${t.spec.controlPlaneRef.name}`] : [],
  );
  const ctx: TemplateTestContext = {
    ...deps,
    caches: {
      tests,
      controlPlanes: manager.cache<CoderControlPlane>(coderControlPlaneResource),
      secrets: manager.cache<V1Secret>(builtinResources.secret),
    },
    rateLimits: new RateLimitMemory(),
    cleanupPauses: new RateLimitMemory(),
  };
  const testsOf = (cp: CoderControlPlane) =>
    tests
      .byIndex(controlPlaneRefIndex, `${cp.metadata.namespace}/${cp.metadata.name}`)
      .map((t) => requestKey(t.metadata.namespace, t.metadata.name!));
  return manager
    .controller(controllerName)
    .for(coderTemplateTestResource)
    .watches<CoderControlPlane>(coderControlPlaneResource, testsOf)
    .build((request, rc) => reconcileTemplateTest(ctx, request, rc));
};
