// The ordered steps of one CoderAIGatewayKey reconcile: deletion, the finalizer, the spec check, one pass
// against Coder and the destination Secrets, Events for new problems, and the status, written only when it changed.
import { coderAIGatewayKeyResource } from '../../../generated/clients/coderaigatewaykey.ts';
import { CoderAIGatewayKeyConditions as C, type CoderAIGatewayKey } from '../../../generated/types/coderaigatewaykey.ts';
import { validateCoderAIGatewayKey } from '../../../generated/validators/coderaigatewaykey.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { warnOnNewProblem } from '../shared/event-target.ts';
import { partitionSchemaErrors, schemaErrorsMessage } from '../shared/spec-check.ts';
import type { GatewayKeyContext } from './context.ts';
import { finalizeGatewayKey, gatewayKeyFinalizer } from './finalize.ts';
import { computeStatus, readyCondition } from './status.ts';
import { syncGatewayKey } from './sync.ts';

const warnedConditions = [C.ControlPlaneReady.type, C.CredentialSecretReady.type, C.Supported.type, C.Entitled.type, C.Synced.type];

export async function reconcileGatewayKey(ctx: GatewayKeyContext, request: Request, rc: ReconcileContext): Promise<ReconcileResult | void> {
  const k = ctx.caches.keys.get(request.namespace, request.name);
  if (!k) return;
  if (k.metadata.deletionTimestamp) return finalizeGatewayKey(ctx, k, rc.signal);
  if (await ctx.writer.addFinalizer(coderAIGatewayKeyResource, k, gatewayKeyFinalizer)) return;

  const { blocking } = partitionSchemaErrors(validateCoderAIGatewayKey(k));
  if (blocking.length) return reportInvalidSpec(ctx, k, schemaErrorsMessage('CoderAIGatewayKey', blocking));

  const pass = await syncGatewayKey(ctx, k, rc.signal);
  rc.signal.throwIfAborted();
  for (const type of warnedConditions) await warnOnNewProblem(ctx.events, k, pass.conditions[type], 'SyncAIGatewayKey');
  const conditions = { ...pass.conditions, [C.Ready.type]: readyCondition(pass.blocker) };
  await ctx.writer.writeStatus(coderAIGatewayKeyResource, k, computeStatus(k, { conditions, status: pass.status }, ctx.now()));
  if (pass.error) throw pass.error;
  return pass.requeueAfterMs ? { requeueAfterMs: pass.requeueAfterMs } : undefined;
}

async function reportInvalidSpec(ctx: GatewayKeyContext, k: CoderAIGatewayKey, message: string): Promise<void> {
  const ready = { type: C.Ready.type, status: 'False' as const, reason: C.Ready.reasons.InvalidSpec, message };
  await warnOnNewProblem(ctx.events, k, ready, 'ValidateSpec');
  await ctx.writer.writeStatus(
    coderAIGatewayKeyResource,
    k,
    computeStatus(k, { conditions: { [C.Ready.type]: ready }, status: {} }, ctx.now()),
  );
}
