// How a control plane is reached from outside the cluster: its Ingress or HTTPRoute (spec.expose), applied
// only over objects it controls, the one it no longer asks for deleted, and the Exposed condition.
import type { V1Ingress } from '@kubernetes/client-node';
import { CoderControlPlaneConditions, type CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { builtinResources } from '../../runtime/resource.ts';
import type { OwnedChildren } from '../shared/workload/owned-children.ts';
import type { ControlPlaneContext } from './context.ts';
import type { HTTPRoute } from './desired/exposure.ts';

const exposureRetryMs = 2 * 60_000;
const { Exposed } = CoderControlPlaneConditions;

/** Exposed (none while spec.expose asks for nothing that was applied), and when to look again. */
export interface ExposureOutcome {
  exposed?: ConditionOf<typeof Exposed>;
  requeueAfterMs?: number;
}

/** Applies the Ingress or HTTPRoute `desired` holds (built from spec.expose) through `children`, and deletes the one it does not. */
export async function applyExposure(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  desired: { ingress: V1Ingress | undefined; httpRoute: HTTPRoute | undefined },
  children: OwnedChildren,
): Promise<ExposureOutcome> {
  const ns = cp.metadata.namespace!;
  const name = cp.metadata.name!;
  const liveIngress = ctx.caches.ingresses.get(ns, name);
  const expose = cp.spec?.expose;
  let ingressApplied = false;
  if (desired.ingress) {
    ingressApplied = (await children.apply(builtinResources.ingress, desired.ingress, liveIngress)) !== undefined;
  } else if (liveIngress && isControllerOwnedBy(liveIngress as V1Ingress, cp)) {
    await ctx.writer.deleteExactly(builtinResources.ingress, liveIngress);
  }
  const routeServed = expose?.gateway || !expose ? await ctx.writer.served(builtinResources.httpRoute) : false;
  if (desired.httpRoute) {
    if (!routeServed) {
      return {
        exposed: {
          type: Exposed.type,
          status: 'False',
          reason: Exposed.reasons.GatewayAPINotInstalled,
          message:
            'spec.expose.gateway is set, but the API server does not serve HTTPRoute (gateway.networking.k8s.io/v1); install the Gateway API CRDs. Retrying every 2 minutes.',
        },
        requeueAfterMs: exposureRetryMs,
      };
    }
    const applied = await children.apply(builtinResources.httpRoute, desired.httpRoute, await liveHTTPRoute(ctx, ns, name));
    if (!applied) return {};
    return {
      exposed: { type: Exposed.type, status: 'True', reason: Exposed.reasons.HTTPRouteApplied, message: `HTTPRoute "${name}" is applied.` },
      requeueAfterMs: exposureRetryMs,
    };
  }
  if (routeServed) {
    const route = await liveHTTPRoute(ctx, ns, name);
    if (route && isControllerOwnedBy(route, cp)) await ctx.writer.deleteExactly(builtinResources.httpRoute, route);
  }
  if (ingressApplied) {
    return {
      exposed: { type: Exposed.type, status: 'True', reason: Exposed.reasons.IngressApplied, message: `Ingress "${name}" is applied.` },
    };
  }
  return {};
}

/** HTTPRoutes are read live: their CRD may be installed after the operator started. */
function liveHTTPRoute(ctx: ControlPlaneContext, ns: string, name: string) {
  return ctx.writer.get<HTTPRoute>(builtinResources.httpRoute, ns, name);
}
