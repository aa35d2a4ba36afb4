// How a template test reaches Coder: the referenced control plane's operator token, only
// when its operator access is ready and the token Secret is its own (the kit's resolveControlPlane), on the
// in-cluster Service URL (same-origin rule), with every call sent once: the test's own waits and its 429
// backoff decide when to ask again, not the client's retries.
import { coderTemplateTestResource } from '../../../generated/clients/codertemplatetest.ts';
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderClient } from '../../coder/client.ts';
import { resolveControlPlane } from '../../controlplane/access.ts';
import type { TemplateTestContext } from './context.ts';
import { R, wait, type Step } from './step.ts';

export type CoderAccess = { ok: true; client: CoderClient; controlPlane: CoderControlPlane } | { ok: false; step: Step };

export function reachCoder(ctx: TemplateTestContext, test: CoderTemplateTest): CoderAccess {
  const access = resolveControlPlane(ctx, ctx.caches, test.metadata.namespace!, test.spec.controlPlaneRef, {
    ownerFor: coderTemplateTestResource.kind,
  });
  if (!access.usable) {
    const reason = access.reason === 'OperatorAccessNotReady' ? R.OperatorAccessNotReady : R.ControlPlaneNotReady;
    return { ok: false, step: wait(reason, access.message) };
  }
  return { ok: true, client: access.client, controlPlane: access.controlPlane };
}

/** Options for every Coder call of a template test: sent once, ended with the reconcile. */
export const once = (signal: AbortSignal) => ({ retries: 0, signal }) as const;
