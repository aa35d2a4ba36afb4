// One CoderAIProvider reconcile: the shared steps of the kinds kept in Coder, with the provider's spec
// check (its schema, and a spec no request can be built from), deletion and pass.
import { coderAIProviderResource } from '../../../generated/clients/coderaiprovider.ts';
import { CoderAIProviderConditions as C, type CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import { validateCoderAIProvider } from '../../../generated/validators/coderaiprovider.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { coderObjectFinalizer } from '../shared/coder-object-context.ts';
import { reconcileCoderObject } from '../shared/coder-object-reconcile.ts';
import { blockingSchemaProblem, SpecError } from '../shared/spec-check.ts';
import type { ProviderContext } from './context.ts';
import { baseURL } from './desired.ts';
import { finalizeProvider } from './finalize.ts';
import { syncProvider } from './sync.ts';

export function reconcileProvider(ctx: ProviderContext, request: Request, rc: ReconcileContext): Promise<ReconcileResult | void> {
  return reconcileCoderObject(
    ctx,
    {
      resource: coderAIProviderResource,
      finalizer: coderObjectFinalizer,
      specProblem,
      finalize: (p, signal) => finalizeProvider(ctx, p, signal),
      sync: (p, signal) => syncProvider(ctx, p, signal),
      warnedConditions: [C.ControlPlaneReady.type, C.CredentialSecretReady.type, C.Supported.type, C.Synced.type],
      syncAction: 'SyncAIProvider',
      availableMessage: 'The provider is in Coder as spec describes; clients reach it at status.routes.',
    },
    request,
    rc,
  );
}

/** A value of the wrong type (an object stored without this schema), or a spec no request can be built from. */
export function specProblem(p: CoderAIProvider): string | undefined {
  const schemaProblem = blockingSchemaProblem('CoderAIProvider', validateCoderAIProvider(p));
  if (schemaProblem) return schemaProblem;
  try {
    baseURL(p);
  } catch (err) {
    if (err instanceof SpecError) return err.message;
    throw err;
  }
  return undefined;
}
