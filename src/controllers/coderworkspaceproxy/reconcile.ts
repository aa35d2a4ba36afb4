// The ordered steps of one CoderWorkspaceProxy reconcile.
import { childRefusalMessage, reportRefusedChild } from '../shared/child-refused.ts';
import type { V1Secret } from '@kubernetes/client-node';
import { coderWorkspaceProxyResource } from '../../../generated/clients/coderworkspaceproxy.ts';
import {
  CoderWorkspaceProxyConditions as C,
  type CoderWorkspaceProxy,
  type CoderWorkspaceProxyStatus,
} from '../../../generated/types/coderworkspaceproxy.ts';
import { validateCoderWorkspaceProxy } from '../../../generated/validators/coderworkspaceproxy.ts';
import type { ReconcileContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { builtinResources } from '../../runtime/resource.ts';
import type { ValidationError } from '../../validation/error.ts';
import { eventTarget, warnOnNewProblem } from '../shared/event-target.ts';
import { liveRestartedAt } from '../shared/pod-spec.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { partitionSchemaErrors, reportInvalidSpec, schemaErrorsMessage, SpecError, specValidCondition } from '../shared/spec-check.ts';
import { mergeOutcomes, type StepOutcome } from '../shared/step-outcome.ts';
import { applyChildren, removeDeploymentReferencing } from './children.ts';
import { coderAccess, registrationMode, type RegistrationMode } from './coder-access.ts';
import type { ProxyContext } from './context.ts';
import { checkCredentials } from './credentials.ts';
import { buildDeployment } from './deployment.ts';
import { deregistrationFinalizer, finalize } from './deregistration.ts';
import { childName, proxyTokenKey, tokenSecretName } from './names.ts';
import { ensureRegistration, type Registration } from './registration.ts';
import { buildService } from './service.ts';
import { workspaceProxyReadyRule } from './readiness.ts';
import { computeStatus } from './status.ts';
import { tokenSecretState, type TokenSecretState } from './token-secret.ts';

/** How soon a failed registration is tried again. */
const registrationRetryMs = 30_000;
/** Another's proxy of that name goes only when a Coder admin deletes it, which no watch shows. */
const nameTakenRetryMs = 120_000;

export async function reconcileWorkspaceProxy(ctx: ProxyContext, request: Request, rc: ReconcileContext): Promise<ReconcileResult | void> {
  const cached = ctx.caches.proxies.get(request.namespace, request.name);
  if (!cached) return;
  // The cache may not show the status the previous reconcile wrote a moment ago.
  const proxy = ctx.writer.current(coderWorkspaceProxyResource, cached);
  if (proxy.metadata.deletionTimestamp) return finalize(ctx, proxy, rc.signal);
  const { blocking, tolerated } = partitionSchemaErrors(validateCoderWorkspaceProxy(proxy));
  if (blocking.length) {
    return reportInvalidSpec(
      ctx,
      coderWorkspaceProxyResource,
      proxy,
      C.SpecValid,
      schemaErrorsMessage('CoderWorkspaceProxy', blocking),
      workspaceProxyReadyRule,
    );
  }
  const mode = registrationMode(proxy);
  // Goes on from the version the finalizer write returned: the controller's event filter ignores that write.
  // A manual proxy has nothing to deregister; losing the finalizer brings a new version, which reconciles again.
  if (mode === 'manual' && (await ctx.writer.removeFinalizer(coderWorkspaceProxyResource, proxy, deregistrationFinalizer))) return;
  const current = mode === 'manual' ? proxy : await ctx.writer.withFinalizer(coderWorkspaceProxyResource, proxy, deregistrationFinalizer);
  try {
    return await reconcileLive(ctx, current, mode, tolerated, rc);
  } catch (err) {
    const refused = childRefusalMessage(err, coderWorkspaceProxyResource);
    if (refused) return reportRefusedChild(ctx, coderWorkspaceProxyResource, current, C.SpecValid, refused, workspaceProxyReadyRule);
    if (!(err instanceof SpecError)) throw err;
    return reportInvalidSpec(ctx, coderWorkspaceProxyResource, proxy, C.SpecValid, err.message, workspaceProxyReadyRule);
  }
}

/** CODER_PRIMARY_ACCESS_URL: spec.primaryAccessURL, else the control plane's status.url, else spec.bootstrap.coderURL. */
function primaryAccessURL(proxy: CoderWorkspaceProxy, mode: RegistrationMode, controlPlaneURL: string | undefined): string | undefined {
  const configured = proxy.spec?.primaryAccessURL?.trim();
  if (configured) return configured;
  if (mode === 'controlPlane') return controlPlaneURL;
  if (mode === 'bootstrap') return proxy.spec?.bootstrap?.coderURL?.trim() || undefined;
  throw new SpecError(
    'spec.primaryAccessURL',
    'is required when neither spec.controlPlaneRef nor spec.bootstrap is set; set it to the access URL of Coder',
  );
}

/** The Secret and key the pods read the token from, and whether it holds one the proxy may use. */
function proxyToken(
  proxy: CoderWorkspaceProxy,
  mode: RegistrationMode,
  state: TokenSecretState,
  registration: Registration | undefined,
): { name: string; key: string; held: boolean } {
  if (mode === 'manual') {
    const ref = proxy.spec?.proxySessionTokenSecretRef;
    if (!ref?.name?.trim()) {
      throw new SpecError(
        'spec.proxySessionTokenSecretRef',
        'is required when neither spec.controlPlaneRef nor spec.bootstrap is set; name the Secret with the token of `coder wsproxy create`',
      );
    }
    return { name: ref.name.trim(), key: ref.key || 'token', held: true };
  }
  const held =
    registration?.registered !== undefined || ((state.kind === 'owned' || state.kind === 'adopted') && state.token !== undefined);
  return { name: tokenSecretName(proxy), key: proxyTokenKey, held };
}

/**
 * The generated token Secret. The cache may not have seen the one created a moment ago: an absent one is
 * looked up live, or the next reconcile would issue a new token and fail to create the Secret again.
 */
async function tokenSecret(ctx: ProxyContext, proxy: CoderWorkspaceProxy): Promise<V1Secret | undefined> {
  const name = tokenSecretName(proxy);
  return (
    ctx.caches.secrets.get(proxy.metadata.namespace, name) ??
    (await ctx.writer.get<V1Secret>(builtinResources.secret, proxy.metadata.namespace, name))
  );
}

async function reconcileLive(
  ctx: ProxyContext,
  proxy: CoderWorkspaceProxy,
  mode: RegistrationMode,
  tolerated: readonly ValidationError[],
  { signal }: ReconcileContext,
): Promise<ReconcileResult | void> {
  const namespace = proxy.metadata.namespace;
  const secretNamed = (name: string) => ctx.caches.secrets.get(namespace, name);
  const state: TokenSecretState = mode === 'manual' ? { kind: 'absent' } : tokenSecretState(proxy, await tokenSecret(ctx, proxy));
  const credentials = checkCredentials(proxy, state, secretNamed);
  const credentialsOk = credentials.condition.status === 'True';
  const access = coderAccess(ctx, proxy, credentials.bootstrapToken);
  const url = primaryAccessURL(proxy, mode, access.controlPlaneURL);

  let registration: Registration | undefined;
  if (credentialsOk && access.client) registration = await ensureRegistration(ctx, proxy, access.client, state, signal);
  signal.throwIfAborted();
  const token = proxyToken(proxy, mode, state, registration);

  // A refused Secret reaches no pod: the Deployment is applied only when every Secret it names may be used,
  // and one whose pods still receive a refused Secret is deleted.
  const live = ctx.caches.deployments.get(namespace, childName(proxy));
  const restartedAt = live && isControllerOwnedBy(live, proxy) ? liveRestartedAt(live) : undefined;
  const deployment =
    credentialsOk && token.held && url
      ? buildDeployment(proxy, { primaryAccessURL: url, token: { name: token.name, key: token.key }, restartedAt })
      : undefined;
  const removed = !credentialsOk && (await removeDeploymentReferencing(ctx, proxy, credentials.refused));
  if (removed) {
    await ctx.events.record(
      eventTarget(proxy),
      'Warning',
      'DeploymentRemoved',
      'CheckCredentialSecret',
      'The proxy Deployment was deleted: its pods referenced a Secret this proxy may not use.',
    );
  }
  const children = await applyChildren(ctx, proxy, { service: buildService(proxy), deployment }, removed);

  const registrationStep: StepOutcome<CoderWorkspaceProxyStatus> =
    mode === 'manual'
      ? { conditions: { [C.ProxyRegistered.type]: undefined }, status: { registered: false, proxyID: undefined, proxyName: undefined } }
      : registration?.registered
        ? {
            conditions: { [C.ProxyRegistered.type]: registration.condition },
            status: { registered: true, proxyID: registration.registered.id, proxyName: registration.registered.name },
          }
        : registration
          ? {
              conditions: { [C.ProxyRegistered.type]: registration.condition },
              requeueAfterMs:
                registration.condition.reason === C.ProxyRegistered.reasons.ProxyNameTaken ? nameTakenRetryMs : registrationRetryMs,
            }
          : {};
  const specValid = await specValidCondition(
    ctx,
    proxy,
    C.SpecValid,
    'The Deployment and Service could be built from the spec.',
    tolerated,
  );
  const outcome = mergeOutcomes<CoderWorkspaceProxyStatus>(
    { conditions: { [C.SpecValid.type]: specValid, [C.CredentialSecretReady.type]: credentials.condition } },
    access,
    registrationStep,
    {
      conditions: { [C.ChildrenOwned.type]: children.condition },
      status: { proxyTokenSecretRef: { name: token.name, key: token.key }, primaryAccessURL: url },
    },
  );
  for (const [type, action] of [
    [C.CredentialSecretReady.type, 'CheckCredentialSecret'],
    [C.ControlPlaneReady.type, 'ResolveControlPlane'],
    [C.OperatorAccessReady.type, 'ResolveControlPlane'],
    [C.ProxyRegistered.type, 'RegisterProxy'],
    [C.ChildrenOwned.type, 'ApplyChildren'],
  ] as const) {
    await warnOnNewProblem(ctx.events, proxy, outcome.conditions[type], action);
  }
  await ctx.writer.writeStatus(coderWorkspaceProxyResource, proxy, computeStatus(proxy, children.deployment, outcome, ctx.now()));
  return outcome.requeueAfterMs ? { requeueAfterMs: outcome.requeueAfterMs } : undefined;
}
