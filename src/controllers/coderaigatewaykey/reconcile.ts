// The ordered steps of one CoderAIGatewayKey reconcile, run by the shared skeleton (shared/reconcile/kind.ts):
// the spec check, destination consent, control plane, version gate, entitlement, the key list (which also
// proves the API is served), then the key every destination holds and the retirement of the previous one
// (sync.ts), its heartbeat, and the AI Gateway switch.
import { coderAIGatewayKeyResource } from '../../../generated/clients/coderaigatewaykey.ts';
import {
  CoderAIGatewayKeyConditions as C,
  type CoderAIGatewayKey,
  type CoderAIGatewayKeyConditionChanges,
  type CoderAIGatewayKeyStatus,
} from '../../../generated/types/coderaigatewaykey.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { availableRule, cachedObject, cleanupFinalizer, syncWarnings } from '../shared/coder-object/kind.ts';
import { gatewayEnabled, listServed } from '../shared/coder-object/coder-checks.ts';
import { entitlementGate, invalidSpec, openingSteps, type Connected } from '../shared/coder-object/opening-steps.ts';
import { applied } from '../shared/coder-object/step-outcomes.ts';
import type { Kind } from '../shared/reconcile/kind.ts';
import type { Outcomes } from '../shared/reconcile/outcome.ts';
import { blockingSchemaProblem } from '../shared/spec-check.ts';
import { connectedCondition } from './connected.ts';
import type { GatewayKeyContext } from './context.ts';
import { claimedDestinationProblem, destinationConsent, destinationsOf } from './destinations.ts';
import { finalizeGatewayKey } from './finalize.ts';
import { ensureKey, keysPath, retirePreviousKey } from './sync.ts';

/** The schema validator (with the CEL runtime it needs) loads with the first CoderAIGatewayKey reconciled, not at start. */
const schemaValidator = () => import('../../../generated/validators/coderaigatewaykey.ts');

const syncAction = 'SyncAIGatewayKey';

export const gatewayKeyKind: Kind<CoderAIGatewayKey, GatewayKeyContext, CoderAIGatewayKeyConditionChanges> = {
  resource: coderAIGatewayKeyResource,
  cached: cachedObject,
  readyRule: availableRule('The key exists in Coder and every destination Secret holds it.'),
  finalizer: cleanupFinalizer,
  finalize: finalizeGatewayKey,
  steps,
  warnings: { ...syncWarnings(syncAction), [C.Entitled.type]: syncAction },
};

async function steps(
  ctx: GatewayKeyContext,
  k: CoderAIGatewayKey,
  out: Outcomes<CoderAIGatewayKeyStatus, CoderAIGatewayKeyConditionChanges>,
  { signal }: ReconcileContext,
) {
  const specProblem =
    blockingSchemaProblem('CoderAIGatewayKey', (await schemaValidator()).validateCoderAIGatewayKey(k)) ?? claimedDestinationProblem(k);
  if (out.stopsAt(await invalidSpec(ctx, k, specProblem))) return;
  const namespace = k.metadata.namespace ?? '';
  const destinations = destinationsOf(k, (name) => ctx.caches.secrets.get(namespace, name));
  const credentials = destinationConsent(k, destinations);
  const entitlement = (connected: Connected) => entitlementGate(ctx, connected, signal);
  const connection = await openingSteps(ctx, k, out, { credentials, feature: 'aiGatewayKeys', entitlement }, signal);
  if (!connection) return;
  const { client } = connection;
  const keys = await listServed(connection, keysPath, 'AI Gateway keys', () => client.request('GET', keysPath, { signal }), signal);
  if (out.stopsAt(keys)) return;

  const key = await ensureKey(ctx, client, k, keys.items, destinations, signal);
  if (out.stopsAt(key)) return;
  if (out.stopsAt(await retirePreviousKey(ctx, client, k, key.status?.previousKey ?? k.status?.previousKey, signal))) return;
  out.add({ conditions: { [C.Connected.type]: connectedCondition(key.current.last_heartbeat_at, ctx.now()) } });
  out.add(applied(`The key "${key.current.name}" exists in Coder and every destination Secret holds it.`));
  out.add(await gatewayEnabled(ctx, k, connection, 'standalone gateways cannot connect', signal));
}
