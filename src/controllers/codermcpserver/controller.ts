// CoderMCPServer controller wiring: the shared wiring of the kinds kept in Coder, with the Secrets spec.auth names.
import { coderMCPServerResource } from '../../../generated/clients/codermcpserver.ts';
import type { CoderMCPServer } from '../../../generated/types/codermcpserver.ts';
import { coderObjectContext, coderObjectController } from '../shared/coder-object-context.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import type { MCPServerContext } from './context.ts';
import { credentialRefs } from './desired.ts';
import { reconcileMCPServer } from './reconcile.ts';

export const setup: ControllerSetup = (manager, deps) => {
  const ctx: MCPServerContext = coderObjectContext<CoderMCPServer>(manager, deps, coderMCPServerResource);
  return coderObjectController(
    manager,
    'codermcpserver',
    coderMCPServerResource,
    ctx,
    (s) => credentialRefs(s).map((r) => r.ref.name),
    (request, rc) => reconcileMCPServer(ctx, request, rc),
  );
};
