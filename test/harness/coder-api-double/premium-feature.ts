// coder/coder v2.26.1 enterprise/coderd/templates.go RequireFeatureMW: a premium route runs its handler only
// while the feature is enabled in the entitlements, and otherwise answers 403 "<Feature> is a Premium
// feature. Contact sales!", the feature's name humanized as codersdk/deployment.go FeatureName.Humanize does.
import type { Answer, Handler } from './handlers.ts';

export type PremiumFeature = 'workspace_proxy' | 'external_provisioner_daemons' | 'aibridge';

function humanize(feature: PremiumFeature): string {
  // v2.36.0 names aibridge for users by its new product name.
  if (feature === 'aibridge') return 'AI Gateway';
  return feature
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

export function premiumRefusal(feature: PremiumFeature): Answer {
  return { status: 403, body: { message: `${humanize(feature)} is a Premium feature. Contact sales!` } };
}

/** The handler behind RequireFeatureMW(feature). */
export function requireFeature(feature: PremiumFeature, handler: Handler): Handler {
  return (ctx) => (ctx.state.entitlements.features[feature]?.enabled ? handler(ctx) : premiumRefusal(feature));
}
