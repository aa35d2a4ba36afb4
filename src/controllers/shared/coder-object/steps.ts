// The steps every kind that keeps an object in a control plane's Coder (the AI kinds) takes, each giving its
// outcome to the reconcile skeleton: a spec it cannot act on, its credential Secrets, the control plane and
// Coder's build info, the version gate, the entitlement where the kind needs one, the resync, the list that
// proves the kind's API is served, and whether AI Gateway is on. A step that meets a problem stops the
// reconcile with Ready's reason and message, and says whether only the user can move the object on (Stalled).
import { CoderAIGatewayKeyConditions } from '../../../../generated/types/coderaigatewaykey.ts';
import { CoderAIProviderConditions } from '../../../../generated/types/coderaiprovider.ts';
import { isCoderNotFound } from '../../../coder/error-predicates.ts';
import type { ConditionInput } from '../../../runtime/conditions.ts';
import type { EventRecorder } from '../../../runtime/events.ts';
import { connectToCoder, type CoderConnection } from '../coder-connection.ts';
import { coderHasFeature, missingFeatureMessage, type CoderFeature } from '../coder-releases.ts';
import { entitledCondition, entitlementsUnavailableCondition } from '../entitled-condition.ts';
import { warnOnNewProblem } from '../event-target.ts';
import type { Stop } from '../reconcile/outcome.ts';
import type { CoderObject, CoderObjectContext } from './context.ts';
import { stopWith, supportedCondition, syncFailed, type CoderObjectOutcome } from './synced.ts';

// The AI kinds declare Ready, Supported and Synced with these reasons; Entitled only the gateway key.
const C = CoderAIProviderConditions;
const R = C.Ready.reasons;
const E = CoderAIGatewayKeyConditions;

/** How soon entitlements that could not be read are asked for again. */
const entitlementsRetryMs = 30_000;

export type Connected = Extract<CoderConnection, { connected: true }>;

/** An outcome that stops, or one that goes on with what the step found (`What`): `out.stopsAt` tells which. */
export type Found<What, Outcome = CoderObjectOutcome> = (Outcome & { stop: Stop }) | (Outcome & What & { stop?: undefined });

/**
 * Ready False InvalidSpec (Stalled True) for `problem`, a message naming the field, with a Warning Event when
 * it is new; nothing is sent to Coder until the spec changes, and the rest of the status stays.
 */
export async function invalidSpec(
  ctx: { events: Pick<EventRecorder, 'record'> },
  obj: CoderObject,
  problem: string | undefined,
): Promise<CoderObjectOutcome> {
  if (!problem) return {};
  const ready: ConditionInput = { type: C.Ready.type, status: 'False', reason: R.InvalidSpec, message: problem };
  await warnOnNewProblem(ctx.events, obj, ready, 'ValidateSpec');
  return { stop: stopWith(R.InvalidSpec, problem), conditionsOnly: true };
}

/**
 * CredentialSecretReady (undefined when spec names no Secret, which removes it); anything but True stops. A
 * Secret change reconciles at once (watched), so there is nothing to look again for.
 */
export function credentialsChecked(condition: ConditionInput | undefined): CoderObjectOutcome {
  const conditions = { [C.CredentialSecretReady.type]: condition };
  if (!condition || condition.status === 'True') return { conditions };
  return { conditions, stop: stopWith(R.CredentialSecretNotReady, condition.message) };
}

/**
 * ControlPlaneReady and status.coderVersion: the control plane with operator access, and its Coder's build
 * info. A control plane that is not usable yet is looked at again in 30 s; a Coder that does not answer is
 * backed off (the error).
 */
export async function connect<T extends CoderObject>(
  ctx: CoderObjectContext<T>,
  obj: T,
  signal: AbortSignal,
): Promise<Found<{ connection: Connected }>> {
  const connection = await connectToCoder(ctx, ctx.caches, ctx.facts, obj, signal);
  const conditions = { [C.ControlPlaneReady.type]: connection.condition };
  if (!connection.connected) {
    return {
      conditions,
      stop: stopWith(R.ControlPlaneNotReady, connection.condition.message, false),
      requeueAfterMs: connection.requeueAfterMs,
      error: connection.error,
    };
  }
  return { conditions, status: { coderVersion: connection.buildInfo.version }, connection };
}

/**
 * Supported False CoderVersionUnsupported when the kind's API (in the table of Coder releases,
 * coder-releases.ts) is not in this release. Asked again at the resync: nothing watched shows an upgrade.
 */
export function versionGate(ctx: { resyncMs: number }, connection: Connected, feature: CoderFeature): CoderObjectOutcome {
  const { version } = connection.buildInfo;
  if (coderHasFeature(version, feature) !== false) return {};
  const message = `${missingFeatureMessage(version, feature)}. Upgrade Coder.`;
  return {
    conditions: { [C.Supported.type]: supportedCondition(C.Supported.reasons.CoderVersionUnsupported, message, 'False') },
    stop: stopWith(R.Unsupported, message),
    requeueAfterMs: ctx.resyncMs,
  };
}

/**
 * Entitled: whether the license has AI Gateway (feature aibridge), which the gateway key's routes need. Not
 * entitled stops until the resync (a license change shows no event); entitlements that cannot be read are
 * asked for again in 30 s.
 */
export async function entitlementGate<T extends CoderObject>(
  ctx: CoderObjectContext<T>,
  connection: Connected,
  signal: AbortSignal,
): Promise<CoderObjectOutcome> {
  let entitled: ConditionInput;
  try {
    entitled = entitledCondition(
      await ctx.facts.entitlements(connection.controlPlane, connection.client, { signal }),
      'aibridge',
      'AI Gateway',
    );
  } catch (err) {
    signal.throwIfAborted();
    const unknown = entitlementsUnavailableCondition(err);
    return {
      conditions: { [E.Entitled.type]: unknown },
      stop: stopWith(E.Ready.reasons.NotEntitled, unknown.message, false),
      requeueAfterMs: entitlementsRetryMs,
    };
  }
  const conditions = { [E.Entitled.type]: entitled };
  if (entitled.status !== 'False') return { conditions };
  return { conditions, stop: stopWith(E.Ready.reasons.NotEntitled, entitled.message), requeueAfterMs: ctx.resyncMs };
}

/** Once Coder answers, the object is compared with it again at the resync: drift in Coder shows no event. */
export function resync(ctx: { resyncMs: number }): CoderObjectOutcome {
  return { requeueAfterMs: ctx.resyncMs };
}

/**
 * The kind's list at `path` (`list` makes the call), which also proves the API is served: a 404 gives
 * Supported False EndpointNotFound, another failure Synced False.
 */
export async function listServed<I>(
  connection: Connected,
  path: string,
  what: string,
  list: () => Promise<I[]>,
  signal: AbortSignal,
): Promise<Found<{ items: I[] }>> {
  const { version } = connection.buildInfo;
  let items: I[];
  try {
    items = await list();
  } catch (err) {
    signal.throwIfAborted();
    if (!isCoderNotFound(err)) return syncFailed(`list the ${what}`, err);
    const message = `Coder ${version} answered 404 for GET ${path} although that version should serve it.`;
    return {
      conditions: { [C.Supported.type]: supportedCondition(C.Supported.reasons.EndpointNotFound, message, 'False') },
      stop: stopWith(R.Unsupported, message),
    };
  }
  return {
    conditions: { [C.Supported.type]: supportedCondition(C.Supported.reasons.Supported, `Coder ${version} serves ${path}.`) },
    items,
  };
}

/**
 * Stops with GatewayDisabledOnControlPlane when AI Gateway is off in that Coder; `consequence` says what that
 * means for this kind. A deployment config that cannot be read is no reason to stop.
 */
export async function gatewayEnabled<T extends CoderObject>(
  ctx: CoderObjectContext<T>,
  obj: T,
  connection: Connected,
  consequence: string,
  signal: AbortSignal,
): Promise<CoderObjectOutcome> {
  let enabled: boolean;
  try {
    const config = await ctx.facts.deploymentConfig(connection.controlPlane, connection.client, { signal });
    enabled = (config.config.ai as { bridge?: { enabled?: boolean } } | undefined)?.bridge?.enabled !== false;
  } catch (err) {
    signal.throwIfAborted();
    ctx.logger.debug(
      { err: (err as Error).message, kind: obj.kind, name: obj.metadata.name },
      'could not read the deployment config; AI Gateway taken as on',
    );
    return {};
  }
  if (enabled) return {};
  const message =
    `AI Gateway is off in that Coder (config.ai.bridge.enabled is false): ${consequence}. ` +
    `Set CODER_AI_GATEWAY_ENABLED=true on CoderControlPlane "${obj.metadata.namespace}/${obj.spec.controlPlaneRef.name}".`;
  return { stop: stopWith(R.GatewayDisabledOnControlPlane, message) };
}
