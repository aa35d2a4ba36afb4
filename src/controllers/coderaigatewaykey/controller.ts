// CoderAIGatewayKey controller wiring: the shared wiring of the kinds kept in Coder, with the destination
// Secrets it writes the key to; rotation and drift by requeue.
import { coderAIGatewayKeyResource } from '../../../generated/clients/coderaigatewaykey.ts';
import type { CoderAIGatewayKey } from '../../../generated/types/coderaigatewaykey.ts';
import { coderObjectContext, coderObjectController } from '../shared/coder-object/context.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import type { GatewayKeyContext, PendingKey } from './context.ts';

export const setup: ControllerSetup = (manager, deps) => {
  const ctx: GatewayKeyContext = coderObjectContext<CoderAIGatewayKey, { pending: Map<string, PendingKey> }>(
    manager,
    deps,
    coderAIGatewayKeyResource,
    { pending: new Map() },
  );
  return coderObjectController(
    manager,
    'coderaigatewaykey',
    ctx,
    async () => (await import('./reconcile.ts')).gatewayKeyKind,
    (k) => k.spec.destinations.map((d) => d.name),
  );
};
