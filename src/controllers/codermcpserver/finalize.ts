// Deletion of a CoderMCPServer: the config in Coder goes too (with every user's connection to it) unless
// spec.deletionPolicy is Orphan; then the finalizer is removed. Only the config status.coderID names is deleted.
import { coderMCPServerResource } from '../../../generated/clients/codermcpserver.ts';
import { CoderMCPServerConditions as C, type CoderMCPServer } from '../../../generated/types/codermcpserver.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { ReconcileResult } from '../../runtime/controller.ts';
import { syncFailure } from '../shared/coder-sync-failure.ts';
import { controlPlaneRetryMs, resolveControlPlane } from '../shared/control-plane-ref.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { MCPServerContext } from './context.ts';
import { mcpServersPath, slugOf } from './desired.ts';
import { computeStatus } from './status.ts';

export const mcpServerFinalizer = 'coder.com/cleanup';

export async function finalizeMCPServer(ctx: MCPServerContext, s: CoderMCPServer, signal: AbortSignal): Promise<ReconcileResult | void> {
  if (!s.metadata.finalizers?.includes(mcpServerFinalizer)) return;
  const coderID = s.status?.coderID ?? ctx.createdIDs.get(s.metadata.uid ?? '');
  if (s.spec.deletionPolicy === 'Orphan' || !coderID) {
    ctx.createdIDs.delete(s.metadata.uid ?? '');
    await ctx.writer.removeFinalizer(coderMCPServerResource, s, mcpServerFinalizer);
    return;
  }
  const namespace = s.metadata.namespace ?? '';
  const slug = slugOf(s);
  const cp = ctx.caches.controlPlanes.get(namespace, s.spec.controlPlaneRef.name);
  if (!cp || cp.metadata.deletionTimestamp) {
    await ctx.events.record(
      eventTarget(s),
      'Warning',
      'CoderObjectLeft',
      'DeleteMCPServer',
      `CoderControlPlane "${namespace}/${s.spec.controlPlaneRef.name}" is gone or being deleted; the MCP server "${slug}" was not deleted in Coder.`,
    );
    ctx.createdIDs.delete(s.metadata.uid ?? '');
    await ctx.writer.removeFinalizer(coderMCPServerResource, s, mcpServerFinalizer);
    return;
  }
  const access = resolveControlPlane(ctx, ctx.caches, namespace, s.spec.controlPlaneRef);
  if (!access.usable) {
    await deleting(ctx, s, `Waiting to delete the MCP server "${slug}" in Coder: ${access.message}`);
    return { requeueAfterMs: controlPlaneRetryMs };
  }
  const path = (s.status?.apiPath ?? mcpServersPath) as typeof mcpServersPath;
  try {
    await access.client.request('DELETE', `${path}/{mcpServer}`, { params: { mcpServer: coderID }, signal });
  } catch (err) {
    signal.throwIfAborted();
    if (!isCoderNotFound(err)) {
      const failure = syncFailure(`delete the MCP server "${slug}"`, err);
      await deleting(ctx, s, failure.condition.message, failure.condition);
      throw err;
    }
  }
  await ctx.events.record(eventTarget(s), 'Normal', 'MCPServerDeleted', 'DeleteMCPServer', `Deleted the MCP server "${slug}" in Coder.`);
  ctx.createdIDs.delete(s.metadata.uid ?? '');
  await ctx.writer.removeFinalizer(coderMCPServerResource, s, mcpServerFinalizer);
}

async function deleting(ctx: MCPServerContext, s: CoderMCPServer, message: string, synced?: ConditionInput) {
  const conditions = {
    [C.Ready.type]: { type: C.Ready.type, status: 'False' as const, reason: C.Ready.reasons.Deleting, message },
    ...(synced ? { [C.Synced.type]: synced } : {}),
  };
  await ctx.writer.writeStatus(coderMCPServerResource, s, computeStatus(s, { conditions, status: {} }, ctx.now()));
}
