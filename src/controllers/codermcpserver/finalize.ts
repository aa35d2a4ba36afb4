// Deletion of a CoderMCPServer: the config status.coderID names is deleted in Coder (with every user's
// connection to it), unless spec.deletionPolicy is Orphan or another live CoderMCPServer records it.
import { coderMCPServerResource } from '../../../generated/clients/codermcpserver.ts';
import type { CoderMCPServer } from '../../../generated/types/codermcpserver.ts';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.ts';
import { finalizeCoderObject } from '../shared/coder-object/finalize.ts';
import type { MCPServerContext } from './context.ts';
import { mcpServersPath, slugOf } from './desired.ts';

export function finalizeMCPServer(ctx: MCPServerContext, s: CoderMCPServer, { signal }: ReconcileContext): Promise<ReconcileResult | void> {
  const recorded = s.status?.coderID ?? ctx.claims.createdBy(s);
  // Two objects can record one id (two operator processes, or objects from before the claims): the other keeps it.
  const coderID = recorded && !ctx.claims.holderOf(s, recorded) ? recorded : undefined;
  return finalizeCoderObject(
    ctx,
    s,
    {
      resource: coderMCPServerResource,
      ids: coderID ? [coderID] : [],
      what: `the MCP server "${slugOf(s)}"`,
      action: 'DeleteMCPServer',
      deletedReason: 'MCPServerDeleted',
      deleteInCoder: async (client, id, sig) => {
        await client.request('DELETE', `${mcpServersPath}/{mcpServer}`, { params: { mcpServer: id }, signal: sig });
      },
      forget: () => ctx.claims.release(s),
    },
    signal,
  );
}
