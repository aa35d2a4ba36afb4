// The ordered steps of one CoderAIProvider reconcile: deletion, the finalizer, the spec check, one pass
// against Coder, Events for new problems, and the status, written only when it changed.
import { coderAIProviderResource } from '../../../generated/clients/coderaiprovider.ts';
import { CoderAIProviderConditions as C, type CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import { validateCoderAIProvider } from '../../../generated/validators/coderaiprovider.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { warnOnNewProblem } from '../shared/event-target.ts';
import { partitionSchemaErrors, schemaErrorsMessage, SpecError } from '../shared/spec-check.ts';
import type { ProviderContext } from './context.ts';
import { baseURL } from './desired.ts';
import { finalizeProvider, providerFinalizer } from './finalize.ts';
import { computeStatus, readyCondition } from './status.ts';
import { syncProvider } from './sync.ts';

/** The conditions whose turn to False a person should see as a Warning Event. */
const warnedConditions = [C.ControlPlaneReady.type, C.CredentialSecretReady.type, C.Supported.type, C.Entitled.type, C.Synced.type];

export async function reconcileProvider(ctx: ProviderContext, request: Request, rc: ReconcileContext): Promise<ReconcileResult | void> {
  const p = ctx.caches.providers.get(request.namespace, request.name);
  if (!p) return;
  if (p.metadata.deletionTimestamp) return finalizeProvider(ctx, p, rc.signal);
  // The write brings a newer version through the watch, which reconciles again.
  if (await ctx.writer.addFinalizer(coderAIProviderResource, p, providerFinalizer)) return;

  const invalid = specProblem(p);
  if (invalid) return reportInvalidSpec(ctx, p, invalid);

  const pass = await syncProvider(ctx, p, rc.signal);
  rc.signal.throwIfAborted();
  for (const type of warnedConditions) await warnOnNewProblem(ctx.events, p, pass.conditions[type], 'SyncAIProvider');
  const conditions = { ...pass.conditions, [C.Ready.type]: readyCondition(pass.blocker) };
  await ctx.writer.writeStatus(coderAIProviderResource, p, computeStatus(p, { conditions, status: pass.status }, ctx.now()));
  if (pass.error) throw pass.error;
  return pass.requeueAfterMs ? { requeueAfterMs: pass.requeueAfterMs } : undefined;
}

/** A value of the wrong type (an object stored without this schema), or a spec no request can be built from. */
export function specProblem(p: CoderAIProvider): string | undefined {
  const { blocking } = partitionSchemaErrors(validateCoderAIProvider(p));
  if (blocking.length) return schemaErrorsMessage('CoderAIProvider', blocking);
  try {
    baseURL(p);
  } catch (err) {
    if (err instanceof SpecError) return err.message;
    throw err;
  }
  return undefined;
}

/** Ready False InvalidSpec and a Warning Event; nothing is sent to Coder until the spec changes. */
async function reportInvalidSpec(ctx: ProviderContext, p: CoderAIProvider, message: string): Promise<void> {
  const ready = { type: C.Ready.type, status: 'False' as const, reason: C.Ready.reasons.InvalidSpec, message };
  await warnOnNewProblem(ctx.events, p, ready, 'ValidateSpec');
  await ctx.writer.writeStatus(
    coderAIProviderResource,
    p,
    computeStatus(p, { conditions: { [C.Ready.type]: ready }, status: {} }, ctx.now()),
  );
}
