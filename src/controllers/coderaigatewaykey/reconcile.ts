// One CoderAIGatewayKey reconcile: the shared steps of the kinds kept in Coder, with the key's schema check,
// deletion and pass (against Coder and the destination Secrets).
import { coderAIGatewayKeyResource } from '../../../generated/clients/coderaigatewaykey.ts';
import { CoderAIGatewayKeyConditions as C } from '../../../generated/types/coderaigatewaykey.ts';
import { validateCoderAIGatewayKey } from '../../../generated/validators/coderaigatewaykey.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { coderObjectFinalizer } from '../shared/coder-object-context.ts';
import { reconcileCoderObject } from '../shared/coder-object-reconcile.ts';
import { blockingSchemaProblem } from '../shared/spec-check.ts';
import type { GatewayKeyContext } from './context.ts';
import { claimedDestinationProblem } from './destinations.ts';
import { finalizeGatewayKey } from './finalize.ts';
import { syncGatewayKey } from './sync.ts';

export function reconcileGatewayKey(ctx: GatewayKeyContext, request: Request, rc: ReconcileContext): Promise<ReconcileResult | void> {
  return reconcileCoderObject(
    ctx,
    {
      resource: coderAIGatewayKeyResource,
      finalizer: coderObjectFinalizer,
      specProblem: (k) => blockingSchemaProblem('CoderAIGatewayKey', validateCoderAIGatewayKey(k)) ?? claimedDestinationProblem(k),
      finalize: (k, signal) => finalizeGatewayKey(ctx, k, signal),
      sync: (k, signal) => syncGatewayKey(ctx, k, signal),
      warnedConditions: [C.ControlPlaneReady.type, C.CredentialSecretReady.type, C.Supported.type, C.Entitled.type, C.Synced.type],
      syncAction: 'SyncAIGatewayKey',
      availableMessage: 'The key exists in Coder and every destination Secret holds it.',
    },
    request,
    rc,
  );
}
