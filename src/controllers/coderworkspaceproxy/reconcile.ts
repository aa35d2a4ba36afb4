// The ordered steps of one CoderWorkspaceProxy reconcile, run by the shared skeleton (shared/reconcile/kind.ts).
import { coderWorkspaceProxyResource } from '../../../generated/clients/coderworkspaceproxy.ts';
import {
  CoderWorkspaceProxyConditions as C,
  type CoderWorkspaceProxy,
  type CoderWorkspaceProxyConditionChanges,
  type CoderWorkspaceProxyStatus,
} from '../../../generated/types/coderworkspaceproxy.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { refusedSpec } from '../shared/child-refused.ts';
import type { Kind } from '../shared/reconcile/kind.ts';
import type { Outcomes } from '../shared/reconcile/outcome.ts';
import { checkSchema, specValidCondition } from '../shared/spec-check.ts';
import { applyChildren } from './children.ts';
import { coderAccess, registrationMode } from './coder-access.ts';
import type { ProxyContext } from './context.ts';
import { checkCredentials } from './credentials.ts';
import { deregister } from './deregistration.ts';
import { primaryAccessURL, proxyToken } from './pod-inputs.ts';
import { workspaceProxyReadyRule } from './readiness.ts';
import { registerProxy } from './registration.ts';
import { proxyWorkload } from './status.ts';
import { readTokenSecret, tokenSecretState, type TokenSecretState } from './token-secret.ts';
import { deregistrationFinalizer } from '../shared/finalizers.ts';

/** The schema validator (with the CEL runtime it needs) loads with the first CoderWorkspaceProxy reconciled, not at start. */
const schemaValidator = () => import('../../../generated/validators/coderworkspaceproxy.ts');

type Out = Outcomes<CoderWorkspaceProxyStatus, CoderWorkspaceProxyConditionChanges>;

export const workspaceProxyKind: Kind<CoderWorkspaceProxy, ProxyContext, CoderWorkspaceProxyConditionChanges> = {
  resource: coderWorkspaceProxyResource,
  cached: (ctx, request) => ctx.caches.proxies.get(request.namespace, request.name),
  readyRule: workspaceProxyReadyRule,
  finalize: deregister,
  // A proxy registered by hand has nothing to deregister; losing the finalizer brings a new version, which reconciles again.
  finalizer: (proxy) => ({ name: deregistrationFinalizer, needed: registrationMode(proxy) !== 'manual' }),
  steps,
  stepFailure: (ctx, proxy, err) => refusedSpec(ctx, coderWorkspaceProxyResource, proxy, err),
  warnings: {
    [C.CredentialSecretReady.type]: 'CheckCredentialSecret',
    [C.ControlPlaneReady.type]: 'ResolveControlPlane',
    [C.OperatorAccessReady.type]: 'ResolveControlPlane',
    [C.ProxyRegistered.type]: 'RegisterProxy',
    [C.ChildrenOwned.type]: 'ApplyChildren',
  },
};

async function steps(ctx: ProxyContext, proxy: CoderWorkspaceProxy, out: Out, { signal }: ReconcileContext): Promise<void> {
  const schema = await checkSchema(ctx, proxy, 'CoderWorkspaceProxy', (await schemaValidator()).validateCoderWorkspaceProxy(proxy));
  if (out.stopsAt(schema)) return;
  const mode = registrationMode(proxy);
  const state: TokenSecretState = mode === 'manual' ? { kind: 'absent' } : tokenSecretState(proxy, await readTokenSecret(ctx, proxy));
  const credentials = checkCredentials(proxy, state, (name) => ctx.caches.secrets.get(proxy.metadata.namespace, name));
  out.add({ conditions: { [C.CredentialSecretReady.type]: credentials.condition } });
  const access = coderAccess(ctx, proxy, credentials.bootstrapToken);
  out.add(access);
  const url = primaryAccessURL(proxy, mode, access.controlPlaneURL);
  // Nothing is registered while a Secret of the proxy is refused: its token could not be stored.
  const client = credentials.condition.status === 'True' ? access.client : undefined;
  const registration = await registerProxy(ctx, proxy, mode, client, state, signal);
  out.add(registration);
  const token = proxyToken(proxy, mode, state, registration.registered);
  out.add({ status: { proxyTokenSecretRef: { name: token.name, key: token.key }, primaryAccessURL: url } });
  const children = await applyChildren(ctx, proxy, { credentials, primaryAccessURL: url, token });
  out.add(children);
  const specValid = await specValidCondition(ctx, proxy, 'The Deployment and Service could be built from the spec.', schema.tolerated);
  out.add({ conditions: { [C.SpecValid.type]: specValid } });
  out.underlay(proxyWorkload(children.deployment));
}
