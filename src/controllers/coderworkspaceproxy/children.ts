// The proxy's Deployment and Service, applied only when they differ and never over a same-named object the
// operator did not create for this proxy (ChildrenOwned). A refused Secret reaches no pod: the Deployment is
// applied only when every Secret it names may be used and the proxy has its token and URL, and one whose
// pods still receive a refused Secret is deleted.
import type { V1Deployment } from '@kubernetes/client-node';
import { CoderWorkspaceProxyConditions as C, type CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import { allOrFirstFailure } from '../../runtime/all-or-first-failure.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { childrenOwnedCondition, OwnedChildren } from '../shared/workload/owned-children.ts';
import { liveRestartedAt } from '../shared/workload/pod-spec.ts';
import { removeDeploymentReferencing } from '../shared/workload/withdrawn-secret.ts';
import type { ProxyContext } from './context.ts';
import type { CredentialCheck } from './credentials.ts';
import { buildDeployment } from './desired/deployment.ts';
import { childName } from './desired/names.ts';
import { buildService } from './desired/service.ts';
import type { ProxyToken } from './pod-inputs.ts';
import type { ProxyOutcome } from './status.ts';

/** ChildrenOwned, and the Deployment as the API server has it (undefined when it is not ours or was not applied). */
export interface ChildrenOutcome extends ProxyOutcome {
  deployment: V1Deployment | undefined;
}

/** What the pods would receive, and whether they may. */
export interface PodInputs {
  credentials: CredentialCheck;
  primaryAccessURL: string | undefined;
  token: ProxyToken;
}

/** Builds both first (SpecError leaves the cluster unchanged), then removes a Deployment that hands on a refused Secret, then applies. */
export async function applyChildren(ctx: ProxyContext, proxy: CoderWorkspaceProxy, inputs: PodInputs): Promise<ChildrenOutcome> {
  const { namespace } = proxy.metadata;
  const name = childName(proxy);
  const children = new OwnedChildren(ctx.writer, proxy);
  const cached = ctx.caches.deployments.get(namespace, name);
  const { credentials, primaryAccessURL, token } = inputs;
  const usable = credentials.condition.status === 'True';
  const restartedAt = cached && children.controls(cached) ? liveRestartedAt(cached) : undefined;
  const deployment =
    usable && token.held && primaryAccessURL
      ? buildDeployment(proxy, { primaryAccessURL, token: { name: token.name, key: token.key }, restartedAt })
      : undefined;
  const removed =
    !usable &&
    (await removeDeploymentReferencing(ctx, proxy, cached, credentials.refused, { pods: 'proxy', action: 'CheckCredentialSecret' }));
  // Just deleted: whatever the cache still shows is gone.
  const current = removed ? undefined : cached;
  const [, applied] = await allOrFirstFailure([
    children.apply(builtinResources.service, buildService(proxy), ctx.caches.services.get(namespace, name)),
    deployment
      ? children.apply(builtinResources.deployment, deployment, current)
      : Promise.resolve(current && children.controls(current) ? current : undefined),
  ]);
  return {
    conditions: { [C.ChildrenOwned.type]: childrenOwnedCondition(C.ChildrenOwned, children.foreign, 'this proxy') },
    deployment: applied,
  };
}
