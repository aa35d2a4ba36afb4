// The proxy in Coder (/api/v2/workspaceproxies) and its token in the generated token Secret: registered when
// Coder does not know it, its token regenerated when the Secret holds none, its name, display name and icon
// kept as the spec says. Only a proxy this object registered is changed: another proxy of the same name is
// reported as ProxyNameTaken and left alone. Tokens go only into the Secret, never into a log line, status or Event.
// The step records the proxy in the status (registered, proxyID, proxyName) and looks again after a failure.
import type { V1Secret } from '@kubernetes/client-node';
import type { components } from '../../../generated/coder-api.ts';
import { CoderWorkspaceProxyConditions as C, type CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import { CoderApiError } from '../../coder/errors.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { credentialWriteConsent, credentialWrittenBy } from '../shared/credential-secret.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { RegistrationMode } from './coder-access.ts';
import type { ProxyContext } from './context.ts';
import { proxyNameInCoder, proxyTokenKey, tokenSecretName } from './desired/names.ts';
import { buildTokenSecret } from './desired/token-secret.ts';
import type { ProxyOutcome } from './status.ts';
import type { TokenSecretState } from './token-secret.ts';

type WorkspaceProxy = components['schemas']['WorkspaceProxy'];
type PatchWorkspaceProxy = components['schemas']['PatchWorkspaceProxy'];
const { type, reasons } = C.ProxyRegistered;
/** How soon a failed registration is tried again. */
const registrationRetryMs = 30_000;
/** Another's proxy of that name goes only when a Coder admin deletes it, which no watch shows. */
const nameTakenRetryMs = 120_000;

/** The icon `coder wsproxy create` offers when none is given (coder/coder v2.26.1 enterprise/cli/workspaceproxy.go). */
export const defaultProxyIcon = '/emojis/1f5fa.png';

/** Name, display name and icon as spec gives them (display name and icon may be empty: unset). */
export interface ProxyIdentity {
  name: string;
  displayName: string;
  icon: string;
}

/**
 * The body of the create: spec's display name and icon, else what `coder wsproxy create` gives (the name, the
 * map emoji), so that the proxy can be changed later (see proxyPatch).
 */
export function proxyCreate(desired: ProxyIdentity): components['schemas']['CreateWorkspaceProxyRequest'] {
  return { name: desired.name, display_name: desired.displayName || desired.name, icon: desired.icon || defaultProxyIcon };
}

/**
 * The body of PATCH /api/v2/workspaceproxies/{id}. Coder requires every field (coder/coder v2.26.1
 * codersdk/workspaceproxy.go, PatchWorkspaceProxy: validate "required" on id, name, display_name and icon, so
 * an empty one is refused with 400) and writes each one (enterprise/coderd/workspaceproxy.go,
 * patchWorkspaceProxy: UpdateWorkspaceProxy sets name, display_name and icon as sent). So a field spec leaves
 * unset is sent as Coder holds it, as `coder wsproxy edit` does, and one Coder holds empty gets the create's default.
 */
export function proxyPatch(current: WorkspaceProxy, desired: ProxyIdentity, regenerateToken: boolean): PatchWorkspaceProxy {
  return {
    id: current.id,
    name: desired.name,
    display_name: desired.displayName || current.display_name || desired.name,
    icon: desired.icon || current.icon_url || defaultProxyIcon,
    regenerate_token: regenerateToken,
  };
}

export type Registration =
  | {
      condition: ConditionOf<typeof C.ProxyRegistered>;
      /** Set once the proxy exists in Coder and the token Secret holds its token. */
      registered?: { id: string; name: string };
    }
  /** A new proxy's token could not be stored: the token Secret holds a value this object did not write. */
  | { refused: ConditionOf<typeof C.CredentialSecretReady> };

/** Another proxy of the wanted name, which this object did not register. */
class ProxyNameTakenError extends Error {}

/**
 * Coder's proxy tokens are "<proxy id>:<secret>" (enterprise/coderd/workspaceproxy.go
 * generateWorkspaceProxyToken), so a token Secret holding one names the proxy it belongs to: the Go
 * original recorded no id, and a status write can be lost after the token was stored.
 */
export function isTokenOf(token: string | undefined, proxy: Pick<WorkspaceProxy, 'id'>): boolean {
  return token !== undefined && token.startsWith(`${proxy.id}:`);
}

/**
 * The proxy of that id or name, unless Coder deleted it. Coder only marks a deleted proxy (enterprise/coderd/
 * workspaceproxy.go deleteWorkspaceProxy), and a lookup by id still answers it, with `deleted` set
 * (coderd/database/queries/proxies.sql GetWorkspaceProxyByID).
 */
async function getProxy(client: CoderClient, idOrName: string, signal: AbortSignal): Promise<WorkspaceProxy | undefined> {
  try {
    const proxy = await client.request('GET', '/api/v2/workspaceproxies/{workspaceProxy}', {
      params: { workspaceProxy: idOrName },
      signal,
    });
    return proxy.deleted ? undefined : proxy;
  } catch (err) {
    if (isCoderNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * This object's proxy: the one under status.proxyID (a rename in the spec keeps the same proxy), else the
 * one of its name whose token the token Secret holds. A proxy of that name without either is another's.
 */
async function findOwnProxy(
  client: CoderClient,
  proxy: CoderWorkspaceProxy,
  heldToken: string | undefined,
  signal: AbortSignal,
): Promise<WorkspaceProxy | undefined> {
  const recorded = proxy.status?.proxyID ? await getProxy(client, proxy.status.proxyID, signal) : undefined;
  if (recorded) return recorded;
  const named = await getProxy(client, proxyNameInCoder(proxy), signal);
  if (named && !isTokenOf(heldToken, named)) throw new ProxyNameTakenError();
  return named;
}

/**
 * Coder names its primary region "primary": a lookup of that name answers the primary region, and a create of
 * it in any letter case is refused (enterprise/coderd/workspaceproxy.go postWorkspaceProxy).
 */
const reservedProxyName = 'primary';

function nameTaken(proxy: CoderWorkspaceProxy, name: string): ConditionOf<typeof C.ProxyRegistered> {
  if (name.toLowerCase() === reservedProxyName) {
    return {
      type,
      status: 'False',
      reason: reasons.ProxyNameTaken,
      message: `Coder reserves the workspace proxy name "${name}" for its primary region. Set spec.bootstrap.proxyName to another name.`,
    };
  }
  return {
    type,
    status: 'False',
    reason: reasons.ProxyNameTaken,
    message: `Workspace proxy "${name}" already exists in Coder and this object did not register it (status.proxyID does not name it and Secret "${tokenSecretName(proxy)}" holds no token of it), so it is neither changed, given a new token, nor deregistered. Choose another spec.bootstrap.proxyName, or delete that proxy in Coder (coder wsproxy delete ${name}) if nothing uses it.`,
  };
}

/** The token goes to the Secret the operator creates, or into the one it may use (owned, or marked for this proxy). */
async function storeToken(ctx: ProxyContext, proxy: CoderWorkspaceProxy, state: TokenSecretState, token: string): Promise<void> {
  if (state.kind === 'absent') {
    await ctx.writer.create<V1Secret>(builtinResources.secret, buildTokenSecret(proxy, token));
    return;
  }
  if (state.kind === 'refused') throw new Error(`the token Secret "${tokenSecretName(proxy)}" may not be written`);
  await ctx.writer.mergePatch(builtinResources.secret, state.secret, {
    metadata: { annotations: credentialWrittenBy(proxy, proxyTokenKey, state.secret) },
    data: { [proxyTokenKey]: Buffer.from(token).toString('base64') },
  });
}

/**
 * Whether a new proxy's token may go into a Secret the operator did not create: not over a value this object
 * did not write. A token of the proxy status.proxyID names is its own (stored before the written-by annotation
 * existed; that proxy is gone from Coder, or this would not be a new one).
 */
function newTokenRefusal(proxy: CoderWorkspaceProxy, state: TokenSecretState): ConditionOf<typeof C.CredentialSecretReady> | undefined {
  if (state.kind !== 'adopted') return undefined;
  const recordedID = proxy.status?.proxyID;
  const recognised = Boolean(recordedID) && isTokenOf(state.token, { id: recordedID! });
  const consent = credentialWriteConsent(proxy, { name: tokenSecretName(proxy), key: proxyTokenKey }, state.secret, recognised);
  if (consent.consented) return undefined;
  return { type: C.CredentialSecretReady.type, status: 'False', reason: consent.reason, message: consent.message };
}

export async function ensureRegistration(
  ctx: ProxyContext,
  proxy: CoderWorkspaceProxy,
  client: CoderClient,
  state: TokenSecretState,
  signal: AbortSignal,
): Promise<Registration> {
  const name = proxyNameInCoder(proxy);
  const displayName = proxy.spec?.bootstrap?.displayName?.trim() ?? '';
  const icon = proxy.spec?.bootstrap?.icon?.trim() ?? '';
  const heldToken = state.kind === 'owned' || state.kind === 'adopted' ? state.token : undefined;
  if (name.toLowerCase() === reservedProxyName) return { condition: nameTaken(proxy, name) };
  try {
    let current = await findOwnProxy(client, proxy, heldToken, signal);
    if (!current) {
      const refused = newTokenRefusal(proxy, state);
      if (refused) return { refused };
      const created = await client
        .request('POST', '/api/v2/workspaceproxies', { body: proxyCreate({ name, displayName, icon }), signal })
        .catch((err: unknown) => {
          // Registered by someone else between the look and the create (enterprise/coderd/workspaceproxy.go answers 409).
          throw err instanceof CoderApiError && err.status === 409 ? new ProxyNameTakenError() : err;
        });
      if (!created.proxy_token) throw new Error('Coder registered the proxy but returned no proxy token');
      await storeToken(ctx, proxy, state, created.proxy_token);
      await ctx.events.record(
        eventTarget(proxy),
        'Normal',
        'ProxyRegistered',
        'RegisterProxy',
        `Registered workspace proxy "${name}" in Coder.`,
      );
      current = created.proxy;
    } else {
      const drifted = current.name !== name || (displayName && current.display_name !== displayName) || (icon && current.icon_url !== icon);
      if (!heldToken || drifted) {
        const updated = await client.request('PATCH', '/api/v2/workspaceproxies/{workspaceProxy}', {
          params: { workspaceProxy: current.id },
          body: proxyPatch(current, { name, displayName, icon }, !heldToken),
          signal,
        });
        if (!heldToken) {
          if (!updated.proxy_token) throw new Error('Coder regenerated the proxy token but returned none');
          await storeToken(ctx, proxy, state, updated.proxy_token);
          await ctx.events.record(
            eventTarget(proxy),
            'Normal',
            'ProxyTokenRegenerated',
            'RegisterProxy',
            `Workspace proxy "${name}" exists in Coder; issued a new token (the previous one stops working) and stored it in Secret "${tokenSecretName(proxy)}".`,
          );
        }
        current = updated.proxy;
      }
    }
    return {
      condition: {
        type,
        status: 'True',
        reason: reasons.Registered,
        message: `Workspace proxy "${current.name}" is registered in Coder; its token is in Secret "${tokenSecretName(proxy)}".`,
      },
      registered: { id: current.id, name: current.name },
    };
  } catch (err) {
    signal.throwIfAborted();
    if (err instanceof ProxyNameTakenError) return { condition: nameTaken(proxy, name) };
    return {
      condition: {
        type,
        status: 'False',
        reason: reasons.RegistrationFailed,
        message: `Registering workspace proxy "${name}" in Coder failed: ${(err as Error).message}`,
      },
    };
  }
}

/**
 * The registration step: a proxy registered by hand has nothing of the operator's in Coder (ProxyRegistered
 * removed); any other is registered once its Secrets may be used and Coder can be reached (`client`).
 * `registered` when Coder knows the proxy and the token Secret holds its token.
 */
export async function registerProxy(
  ctx: ProxyContext,
  proxy: CoderWorkspaceProxy,
  mode: RegistrationMode,
  client: CoderClient | undefined,
  state: TokenSecretState,
  signal: AbortSignal,
): Promise<ProxyOutcome & { registered: boolean }> {
  if (mode === 'manual') {
    return {
      conditions: { [type]: undefined },
      status: { registered: false, proxyID: undefined, proxyName: undefined },
      registered: false,
    };
  }
  if (!client) return { registered: false };
  const registration = await ensureRegistration(ctx, proxy, client, state, signal);
  signal.throwIfAborted();
  if ('refused' in registration) {
    return { conditions: { [C.CredentialSecretReady.type]: registration.refused }, registered: false };
  }
  const conditions = { [type]: registration.condition };
  if (!registration.registered) {
    const requeueAfterMs = registration.condition.reason === reasons.ProxyNameTaken ? nameTakenRetryMs : registrationRetryMs;
    return { conditions, requeueAfterMs, registered: false };
  }
  const { id, name } = registration.registered;
  return { conditions, status: { registered: true, proxyID: id, proxyName: name }, registered: true };
}
