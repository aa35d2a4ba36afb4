// The ordered steps of one CoderMCPServer reconcile: deletion, the finalizer, the spec check, one pass
// against Coder, Events for new problems, and the status, written only when it changed.
import { coderMCPServerResource } from '../../../generated/clients/codermcpserver.ts';
import { CoderMCPServerConditions as C, type CoderMCPServer } from '../../../generated/types/codermcpserver.ts';
import { validateCoderMCPServer } from '../../../generated/validators/codermcpserver.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { warnOnNewProblem } from '../shared/event-target.ts';
import { partitionSchemaErrors, schemaErrorsMessage } from '../shared/spec-check.ts';
import type { MCPServerContext } from './context.ts';
import { finalizeMCPServer, mcpServerFinalizer } from './finalize.ts';
import { computeStatus, readyCondition } from './status.ts';
import { syncMCPServer } from './sync.ts';

const warnedConditions = [C.ControlPlaneReady.type, C.CredentialSecretReady.type, C.Supported.type, C.Synced.type];

export async function reconcileMCPServer(ctx: MCPServerContext, request: Request, rc: ReconcileContext): Promise<ReconcileResult | void> {
  const s = ctx.caches.servers.get(request.namespace, request.name);
  if (!s) return;
  if (s.metadata.deletionTimestamp) return finalizeMCPServer(ctx, s, rc.signal);
  if (await ctx.writer.addFinalizer(coderMCPServerResource, s, mcpServerFinalizer)) return;

  const { blocking } = partitionSchemaErrors(validateCoderMCPServer(s));
  if (blocking.length) return reportInvalidSpec(ctx, s, schemaErrorsMessage('CoderMCPServer', blocking));

  const pass = await syncMCPServer(ctx, s, rc.signal);
  rc.signal.throwIfAborted();
  for (const type of warnedConditions) await warnOnNewProblem(ctx.events, s, pass.conditions[type], 'SyncMCPServer');
  const conditions = { ...pass.conditions, [C.Ready.type]: readyCondition(pass.blocker) };
  await ctx.writer.writeStatus(coderMCPServerResource, s, computeStatus(s, { conditions, status: pass.status }, ctx.now()));
  if (pass.error) throw pass.error;
  return pass.requeueAfterMs ? { requeueAfterMs: pass.requeueAfterMs } : undefined;
}

/** Ready False InvalidSpec and a Warning Event; nothing is sent to Coder until the spec changes. */
async function reportInvalidSpec(ctx: MCPServerContext, s: CoderMCPServer, message: string): Promise<void> {
  const ready = { type: C.Ready.type, status: 'False' as const, reason: C.Ready.reasons.InvalidSpec, message };
  await warnOnNewProblem(ctx.events, s, ready, 'ValidateSpec');
  await ctx.writer.writeStatus(
    coderMCPServerResource,
    s,
    computeStatus(s, { conditions: { [C.Ready.type]: ready }, status: {} }, ctx.now()),
  );
}
