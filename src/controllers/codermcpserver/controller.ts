// CoderMCPServer controller wiring: the shared wiring of the kinds kept in Coder, with the Secrets spec.auth names,
// and the kind itself, so that an object kept from adopting comes back once the object that manages it is gone.
import { coderMCPServerResource } from '../../../generated/clients/codermcpserver.ts';
import type { CoderMCPServer } from '../../../generated/types/codermcpserver.ts';
import { CoderIDClaims } from '../shared/coder-object/coder-id-claims.ts';
import { coderObjectContext, coderObjectController } from '../shared/coder-object/context.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import type { MCPServerContext } from './context.ts';
import { credentialRefs } from './desired.ts';

export const setup: ControllerSetup = (manager, deps) => {
  const base = coderObjectContext<CoderMCPServer>(manager, deps, coderMCPServerResource);
  const ctx: MCPServerContext = { ...base, claims: new CoderIDClaims(base.caches.objects) };
  return coderObjectController(
    manager,
    'codermcpserver',
    ctx,
    async () => (await import('./reconcile.ts')).mcpServerKind,
    (s) => credentialRefs(s).map((r) => r.ref.name),
    ctx.claims.releasedWatch(),
  );
};
