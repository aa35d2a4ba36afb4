// The steps every kind that keeps an object in a control plane's Coder (the AI kinds) starts with, each giving
// its outcome to the reconcile skeleton: a spec it cannot act on, its credential Secrets, the control plane and
// Coder's build info, the version gate, the entitlement where the kind needs one, and the resync. A step that
// meets a problem stops the reconcile with Ready's reason and message, and says whether only the user can move
// the object on (Stalled). The kind's Outcomes are checked to take every condition the steps may set.
import {
  CoderObjectReadyCondition as Ready,
  ControlPlaneReadyCondition as ControlPlaneReady,
  CredentialSecretReadyCondition as CredentialSecretReady,
  SupportedCondition as Supported,
} from '../../../../generated/types/conditions.ts';
import { CoderAIGatewayKeyConditions } from '../../../../generated/types/coderaigatewaykey.ts';
import type { ConditionOf, ConditionWith } from '../../../runtime/conditions.ts';
import type { EventRecorder } from '../../../runtime/events.ts';
import { connectToCoder, type CoderConnection } from './coder-connection.ts';
import { coderHasFeature, missingFeatureMessage, type CoderFeature } from './coder-releases.ts';
import { entitledCondition, entitlementsUnavailableCondition } from './entitled-condition.ts';
import { warnOnNewProblem } from '../event-target.ts';
import type { AnyConditionChanges, ChangeOf, OutcomeSink, StepOutcome } from '../reconcile/outcome.ts';
import type { CoderObject, CoderObjectContext } from './context.ts';
import { stopWith, supportedCondition, type CoderObjectOutcome, type Found, type ReadyWith } from './step-outcomes.ts';

const R = Ready.reasons;
// Only the gateway key declares Entitled.
const E = CoderAIGatewayKeyConditions;

/** How soon entitlements that could not be read are asked for again. */
const entitlementsRetryMs = 30_000;

export type Connected = Extract<CoderConnection, { connected: true }>;

/** CredentialSecretReady of the shared set; a kind may hand over fewer reasons (the gateway key: consent only). */
type CredentialSecretReadyOf = ConditionOf<typeof CredentialSecretReady>;

/** The status every such kind reports from these steps. */
type OpeningStatus = { coderVersion?: string };

// What each step sets, Ready included where it stops with a reason of its own.
type CredentialsChange<Credentials extends CredentialSecretReadyOf> = {
  [CredentialSecretReady.type]?: Credentials | undefined;
  [Ready.type]?: ReadyWith<typeof R.CredentialSecretNotReady>;
};
type ConnectChange = ChangeOf<Connected['condition'] | ReadyWith<typeof R.ControlPlaneNotReady>>;
type VersionGateChange = ChangeOf<
  ConditionWith<typeof Supported.type, typeof Supported.reasons.CoderVersionUnsupported> | ReadyWith<typeof R.Unsupported>
>;
type EntitlementChange = ChangeOf<ConditionOf<typeof E.Entitled> | ReadyWith<typeof R.NotEntitled>>;

/**
 * Ready False InvalidSpec (Stalled True) for `problem`, a message naming the field, with a Warning Event when
 * it is new; nothing is sent to Coder until the spec changes, and the rest of the status stays.
 */
export async function invalidSpec(
  ctx: { events: Pick<EventRecorder, 'record'> },
  obj: CoderObject,
  problem: string | undefined,
): Promise<CoderObjectOutcome<ChangeOf<ReadyWith<typeof R.InvalidSpec>>>> {
  if (!problem) return {};
  const ready: ConditionOf<typeof Ready> = { type: Ready.type, status: 'False', reason: R.InvalidSpec, message: problem };
  await warnOnNewProblem(ctx.events, obj, ready, 'ValidateSpec');
  return { stop: stopWith(R.InvalidSpec, problem), conditionsOnly: true };
}

/**
 * CredentialSecretReady (undefined when spec names no Secret, which removes it); anything but True stops. A
 * Secret change reconciles at once (watched), so there is nothing to look again for.
 */
export function credentialsChecked<Credentials extends CredentialSecretReadyOf>(
  condition: Credentials | undefined,
): CoderObjectOutcome<CredentialsChange<Credentials>> {
  const conditions = { [CredentialSecretReady.type]: condition };
  if (!condition || condition.status === 'True') return { conditions };
  return { conditions, stop: stopWith(R.CredentialSecretNotReady, condition.message) };
}

/**
 * ControlPlaneReady and status.coderVersion: the control plane with operator access, and its Coder's build
 * info. A control plane that is not usable yet is looked at again in 30 s; a Coder that does not answer is
 * backed off (the error).
 */
async function connect<T extends CoderObject>(
  ctx: CoderObjectContext<T>,
  obj: T,
  signal: AbortSignal,
): Promise<Found<{ connection: Connected }, CoderObjectOutcome<ConnectChange>>> {
  const connection = await connectToCoder(ctx, ctx.caches, ctx.facts, obj, ctx.resource.kind, signal);
  const conditions = { [ControlPlaneReady.type]: connection.condition };
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
export function versionGate(
  ctx: { resyncMs: number },
  connection: Connected,
  feature: CoderFeature,
): CoderObjectOutcome<VersionGateChange> {
  const { version } = connection.buildInfo;
  if (coderHasFeature(version, feature) !== false) return {};
  const message = `${missingFeatureMessage(version, feature)}. Upgrade Coder.`;
  return {
    conditions: { [Supported.type]: supportedCondition(Supported.reasons.CoderVersionUnsupported, message, 'False') },
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
): Promise<CoderObjectOutcome<EntitlementChange>> {
  let entitled: ConditionOf<typeof E.Entitled>;
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
      stop: stopWith(R.NotEntitled, unknown.message, false),
      requeueAfterMs: entitlementsRetryMs,
    };
  }
  const conditions = { [E.Entitled.type]: entitled };
  if (entitled.status !== 'False') return { conditions };
  return { conditions, stop: stopWith(R.NotEntitled, entitled.message), requeueAfterMs: ctx.resyncMs };
}

/** Once Coder answers, the object is compared with it again at the resync: drift in Coder shows no event. */
function resync(ctx: { resyncMs: number }): CoderObjectOutcome {
  return { requeueAfterMs: ctx.resyncMs };
}

export interface OpeningOptions<Credentials extends CredentialSecretReadyOf, Gate extends AnyConditionChanges> {
  /** CredentialSecretReady (undefined when spec names no Secret). */
  credentials: Credentials | undefined;
  /** The kind's API in the table of Coder releases (coder-releases.ts). */
  feature: CoderFeature;
  /**
   * The license gate of a kind whose routes need a licensed feature, after the version gate: the gateway key's
   * entitlementGate (AI Gateway, feature aibridge). A function, so that what it sets (Entitled, Ready NotEntitled)
   * is checked against the kind that passes it only.
   */
  entitlement?: (connection: Connected) => Promise<StepOutcome<OpeningStatus, Gate>>;
}

/** Every condition the opening steps may set, with the reasons they give. */
type OpeningChanges<Credentials extends CredentialSecretReadyOf, Gate extends AnyConditionChanges> =
  CredentialsChange<Credentials> | ConnectChange | VersionGateChange | Gate;

/**
 * The steps every such kind starts with, added to `out` in order until one stops: credentials, control plane
 * and build info, version gate, entitlement, then the resync. The connection once all went through.
 */
export async function openingSteps<
  T extends CoderObject,
  Credentials extends CredentialSecretReadyOf,
  Gate extends AnyConditionChanges = never,
>(
  ctx: CoderObjectContext<T>,
  obj: T,
  out: OutcomeSink<OpeningStatus, OpeningChanges<Credentials, Gate>>,
  options: OpeningOptions<Credentials, Gate>,
  signal: AbortSignal,
): Promise<Connected | undefined> {
  if (out.stopsAt(credentialsChecked(options.credentials))) return undefined;
  const connected = await connect(ctx, obj, signal);
  if (out.stopsAt(connected)) return undefined;
  const { connection } = connected;
  if (out.stopsAt(versionGate(ctx, connection, options.feature))) return undefined;
  if (options.entitlement && out.stopsAt(await options.entitlement(connection))) return undefined;
  // Last: each stop before it asks for its own delay (none for a Secret, which is watched; 30 s for a control
  // plane not usable yet and for entitlements that cannot be read, whatever the resync).
  out.add(resync(ctx));
  return connection;
}
