// The license gate: external provisioner daemons need the
// external_provisioner_daemons feature. The control plane's entitlement snapshot is used when it holds a
// value; otherwise Coder is asked. While False nothing else is reconciled.
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { CoderProvisionerConditions } from '../../../generated/types/coderprovisioner.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound, isUnauthorizedOrForbidden } from '../../coder/error-predicates.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import type { ProvisionerOutcome } from './status.ts';

const { ExternalProvisionersEntitled: E } = CoderProvisionerConditions;
export const entitlementRecheckMs = 2 * 60_000;

type Entitled = ConditionOf<typeof E>;

interface EntitlementOutcome {
  condition: Entitled;
  requeueAfterMs?: number;
}

const isEntitled = (e: string | undefined) => e === 'entitled' || e === 'grace_period';

function entitled(source: string): Entitled {
  return { type: E.type, status: 'True', reason: E.reasons.Entitled, message: `External provisioner daemons are entitled (${source}).` };
}

const notEntitled: Entitled = {
  type: E.type,
  status: 'False',
  reason: E.reasons.NotEntitled,
  message:
    'The Coder license does not include external provisioner daemons (external_provisioner_daemons); install a Premium or Enterprise license. Checked again when the control plane reads a new license.',
};

/** ExternalProvisionersEntitled; the steps stop while it is not True. */
export async function checkEntitlement(cp: CoderControlPlane, client: CoderClient, signal?: AbortSignal): Promise<ProvisionerOutcome> {
  const { condition, requeueAfterMs } = await readEntitlement(cp, client, signal);
  return { conditions: { [E.type]: condition }, requeueAfterMs, ...(condition.status === 'True' ? {} : { stop: true as const }) };
}

async function readEntitlement(cp: CoderControlPlane, client: CoderClient, signal?: AbortSignal): Promise<EntitlementOutcome> {
  // The control plane refreshes its snapshot every 2 minutes and writes it when it changes, which reconciles
  // every provisioner of it: a definite value there is current.
  const cached = cp.status?.externalProvisionerDaemonsEntitlement;
  if (isEntitled(cached)) return { condition: entitled('as the control plane last read it') };
  if (cached === 'not_entitled') return { condition: notEntitled };
  let features: Record<string, { entitlement?: string }>;
  try {
    features = (await client.getEntitlements({ signal })).features as Record<string, { entitlement?: string }>;
  } catch (err) {
    signal?.throwIfAborted();
    const [reason, why]: [Entitled['reason'], string] = isCoderNotFound(err)
      ? [E.reasons.NotSupported, 'Coder does not serve /api/v2/entitlements (HTTP 404); external provisioners need an Enterprise build']
      : isUnauthorizedOrForbidden(err)
        ? [E.reasons.Forbidden, 'Coder refused the operator token when reading entitlements (HTTP 401 or 403)']
        : [E.reasons.EntitlementsQueryFailed, `Reading Coder's entitlements failed: ${(err as Error).message}`];
    return {
      condition: { type: E.type, status: 'False', reason, message: `${why}. Checked again in 2 minutes.` },
      requeueAfterMs: entitlementRecheckMs,
    };
  }
  if (isEntitled(features.external_provisioner_daemons?.entitlement)) return { condition: entitled('Coder answered') };
  return { condition: notEntitled, requeueAfterMs: entitlementRecheckMs };
}
