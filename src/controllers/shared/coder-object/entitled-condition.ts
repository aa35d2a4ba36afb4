// The Entitled condition of a kind that needs a licensed Coder feature, from GET /api/v2/entitlements (read
// through the shared CoderFacts cache, so it is re-checked when the cache lapses).
import type { Schemas } from '../../../coder/api-types.ts';
import type { ConditionOf } from '../../../runtime/conditions.ts';
import { CoderAIGatewayKeyConditions } from '../../../../generated/types/coderaigatewaykey.ts';

// CoderAIGatewayKey declares Entitled: its routes are enterprise ones (a 403 "AI Gateway is a Premium feature"
// without a license). CoderAIProvider has none, as Coder serves /api/v2/ai/providers without a license.
const E = CoderAIGatewayKeyConditions.Entitled;

/** Entitled for `feature` (for example aibridge), named for users as `what` (for example AI Gateway). */
export function entitledCondition(entitlements: Schemas['Entitlements'], feature: string, what: string): ConditionOf<typeof E> {
  const features = entitlements.features as Record<string, { entitlement?: string } | undefined>;
  const entitlement = features[feature]?.entitlement;
  if (entitlement === 'entitled') {
    return {
      type: E.type,
      status: 'True',
      reason: E.reasons.Entitled,
      message: `The Coder license includes ${what} (feature ${feature}).`,
    };
  }
  if (entitlement === 'grace_period') {
    return {
      type: E.type,
      status: 'True',
      reason: E.reasons.GracePeriod,
      message: `The Coder license for ${what} (feature ${feature}) is in its grace period; renew it.`,
    };
  }
  return {
    type: E.type,
    status: 'False',
    reason: E.reasons.FeatureNotEntitled,
    message: `The Coder license does not include ${what} (feature ${feature} is ${entitlement ?? 'absent'}); it needs Premium with the AI Governance add-on.`,
  };
}

/** Entitled Unknown: the entitlements could not be read. */
export function entitlementsUnavailableCondition(err: unknown): ConditionOf<typeof E> {
  return {
    type: E.type,
    status: 'Unknown',
    reason: E.reasons.EntitlementsUnavailable,
    message: `GET /api/v2/entitlements failed: ${err instanceof Error ? err.message : String(err)}`,
  };
}
