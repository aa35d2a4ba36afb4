// One CoderMCPServer reconcile: the shared steps of the kinds kept in Coder, with the MCP server's schema
// check, deletion and pass.
import { coderMCPServerResource } from '../../../generated/clients/codermcpserver.ts';
import { CoderMCPServerConditions as C } from '../../../generated/types/codermcpserver.ts';
import { validateCoderMCPServer } from '../../../generated/validators/codermcpserver.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { coderObjectFinalizer } from '../shared/coder-object-context.ts';
import { reconcileCoderObject } from '../shared/coder-object-reconcile.ts';
import { blockingSchemaProblem } from '../shared/spec-check.ts';
import type { MCPServerContext } from './context.ts';
import { finalizeMCPServer } from './finalize.ts';
import { syncMCPServer } from './sync.ts';

export function reconcileMCPServer(ctx: MCPServerContext, request: Request, rc: ReconcileContext): Promise<ReconcileResult | void> {
  return reconcileCoderObject(
    ctx,
    {
      resource: coderMCPServerResource,
      finalizer: coderObjectFinalizer,
      specProblem: (s) => blockingSchemaProblem('CoderMCPServer', validateCoderMCPServer(s)),
      finalize: (s, signal) => finalizeMCPServer(ctx, s, signal),
      sync: (s, signal) => syncMCPServer(ctx, s, signal),
      warnedConditions: [C.ControlPlaneReady.type, C.CredentialSecretReady.type, C.Supported.type, C.Synced.type],
      syncAction: 'SyncMCPServer',
      availableMessage: 'The MCP server is registered in Coder as spec describes.',
    },
    request,
    rc,
  );
}
