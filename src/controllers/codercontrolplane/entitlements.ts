// The entitlements snapshot in status: license tier and the external provisioner
// entitlement, refreshed every 2 minutes while the control plane is Ready. Unlike the original, the
// check time is written only when it was never set or a value changed, so a quiet cluster sees no
// status writes.
import type { CoderControlPlaneStatus } from '../../../generated/types/codercontrolplane.ts';
import type { CoderClient } from '../../coder/client.ts';
import { nowTime } from '../../runtime/conditions.ts';

const entitlementsRefreshMs = 2 * 60_000;
const entitlementsRetryMs = 30_000;

type EntitlementFields = Pick<CoderControlPlaneStatus, 'licenseTier' | 'externalProvisionerDaemonsEntitlement' | 'entitlementsLastChecked'>;

export interface EntitlementsOutcome {
  status: EntitlementFields;
  requeueAfterMs?: number;
}

const entitled = (e: string | undefined) => e === 'entitled' || e === 'grace_period';

export async function refreshEntitlements(
  current: EntitlementFields,
  client: CoderClient | undefined,
  ready: boolean,
  now: Date,
  signal?: AbortSignal,
): Promise<EntitlementsOutcome> {
  const base: EntitlementFields = {
    licenseTier: current.licenseTier || 'unknown',
    externalProvisionerDaemonsEntitlement: current.externalProvisionerDaemonsEntitlement || 'unknown',
    entitlementsLastChecked: current.entitlementsLastChecked,
  };
  if (!ready || !client) return { status: base };
  let entitlements;
  try {
    entitlements = await client.getEntitlements({ signal });
  } catch {
    return { status: base, requeueAfterMs: entitlementsRetryMs };
  }
  const features = entitlements.features as Record<string, { entitlement?: string }> | undefined;
  if (!features) return { status: base, requeueAfterMs: entitlementsRetryMs };
  const tier = !entitlements.has_license
    ? 'none'
    : entitlements.trial
      ? 'trial'
      : entitled(features.custom_roles?.entitlement) || entitled(features.multiple_organizations?.entitlement)
        ? 'premium'
        : 'enterprise';
  const provisioners = features.external_provisioner_daemons?.entitlement;
  const entitlement =
    provisioners === 'entitled' || provisioners === 'grace_period' || provisioners === 'not_entitled' ? provisioners : 'unknown';
  const changed = tier !== base.licenseTier || entitlement !== base.externalProvisionerDaemonsEntitlement;
  return {
    status: {
      licenseTier: tier as EntitlementFields['licenseTier'],
      externalProvisionerDaemonsEntitlement: entitlement as EntitlementFields['externalProvisionerDaemonsEntitlement'],
      entitlementsLastChecked: changed || !base.entitlementsLastChecked ? nowTime(now) : base.entitlementsLastChecked,
    },
    requeueAfterMs: entitlementsRefreshMs,
  };
}
