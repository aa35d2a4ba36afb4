// One pass of a kind that keeps an object in a control plane's Coder (the AI kinds), after its spec check:
// the conditions it decided, the status fields it sets, the first problem it met (Ready's reason), when to
// look again, and a failure to throw once the status is written. Also the steps every such kind starts
// with: its credential Secrets, the control plane and Coder's build info, the version gate and the
// entitlement where the kind needs one, and the list that proves the kind's API is served. Each step goes on or stops the pass.
import { CoderAIGatewayKeyConditions } from '../../../generated/types/coderaigatewaykey.ts';
import { CoderAIProviderConditions } from '../../../generated/types/coderaiprovider.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { connectToCoder, type CoderConnection } from './coder-connection.ts';
import type { CoderObject, CoderObjectContext } from './coder-object-context.ts';
import { syncFailure } from './coder-sync-failure.ts';
import { coderHasFeature, missingFeatureMessage, type CoderFeature } from './coder-releases.ts';
import { entitledCondition, entitlementsUnavailableCondition } from './entitled-condition.ts';

// The AI kinds declare Ready, Supported and Synced with these reasons; Entitled only the gateway key.
const C = CoderAIProviderConditions;
const R = C.Ready.reasons;
const E = CoderAIGatewayKeyConditions;

/** How soon entitlements that could not be read are asked for again. */
const entitlementsRetryMs = 30_000;

export interface Blocker<Reason extends string = string> {
  reason: Reason;
  message: string;
  /** Whether only the user can move the object on (Stalled True), rather than time or a retry. */
  userMustAct: boolean;
}

// The reasons a pass stops for that pass on their own: the control plane comes up, the deletion ends.
const passesOnItsOwn = new Set<string>([R.ControlPlaneNotReady, R.Deleting]);

export interface CoderObjectPass<Status, Reason extends string = string> {
  conditions: Record<string, ConditionInput | undefined>;
  status: Partial<Status>;
  blocker?: Blocker<Reason>;
  requeueAfterMs?: number;
  /** A failure that may pass on its own: thrown after the status is written, so the queue backs off. */
  error?: Error;
}

/** A pass that, unless a step says otherwise, looks again at the resync (drift repair). */
export function newPass<Status, Reason extends string>(resyncMs: number): CoderObjectPass<Status, Reason> {
  return { conditions: {}, status: {}, requeueAfterMs: resyncMs };
}

/** Ends the pass with the problem Ready reports; `userMustAct` defaults to what the reason usually means. */
export function stopPass<P extends CoderObjectPass<unknown>>(
  pass: P,
  reason: NonNullable<P['blocker']>['reason'],
  message: string,
  extra: Partial<P> = {},
  userMustAct = !passesOnItsOwn.has(reason),
): P {
  return Object.assign(pass, { blocker: { reason, message, userMustAct } }, extra);
}

/** Synced False from a failed call; one that may pass on its own is also thrown (after the status write). */
export function failPass<P extends CoderObjectPass<unknown>>(pass: P, action: string, err: unknown): P {
  const failure = syncFailure(action, err);
  pass.conditions[C.Synced.type] = failure.condition;
  pass.blocker = { reason: R.SyncFailed, message: failure.condition.message, userMustAct: !failure.retry };
  if (failure.retry) pass.error = err instanceof Error ? err : new Error(String(err));
  return pass;
}

/** Synced False for a reason the user must act on (the pass stops, nothing to throw). */
export function refusePass<P extends CoderObjectPass<unknown>>(pass: P, syncedReason: string, message: string): P {
  pass.conditions[C.Synced.type] = { type: C.Synced.type, status: 'False', reason: syncedReason, message };
  pass.blocker = { reason: R.SyncFailed, message, userMustAct: true };
  return pass;
}

/** Synced True Applied. */
export function appliedCondition(message: string): ConditionInput {
  return { type: C.Synced.type, status: 'True', reason: C.Synced.reasons.Applied, message };
}

export function supportedCondition(reason: string, message: string, status: 'True' | 'False' = 'True'): ConditionInput {
  return { type: C.Supported.type, status, reason, message };
}

export interface OpenOptions {
  /** CredentialSecretReady (undefined when spec names no Secret); anything but True stops the pass. */
  credentials: ConditionInput | undefined;
  /** The kind's API in the table of Coder releases (coder-releases.ts): a release without it stops the pass. */
  feature?: CoderFeature;
  /** Whether the kind's routes need AI Gateway in the license (feature aibridge): the gateway key's do. */
  entitlement?: boolean;
}

export type Connected = Extract<CoderConnection, { connected: true }>;

/**
 * The steps every such kind starts with: credentials, control plane and build info, version gate and
 * entitlement. Returns the connection, or undefined when the pass stopped.
 */
export async function openPass<T extends CoderObject, Status extends { coderVersion?: string }>(
  ctx: CoderObjectContext<T>,
  obj: T,
  pass: CoderObjectPass<Status>,
  options: OpenOptions,
  signal: AbortSignal,
): Promise<Connected | undefined> {
  const { credentials } = options;
  pass.conditions[C.CredentialSecretReady.type] = credentials;
  // A Secret change reconciles at once (watched), so nothing to look again for.
  if (credentials && credentials.status !== 'True') {
    stopPass(pass, R.CredentialSecretNotReady, credentials.message, { requeueAfterMs: undefined });
    return undefined;
  }

  const connection = await connectToCoder(ctx, ctx.caches, ctx.facts, obj, signal);
  pass.conditions[C.ControlPlaneReady.type] = connection.condition;
  if (!connection.connected) {
    stopPass(pass, R.ControlPlaneNotReady, connection.condition.message, {
      requeueAfterMs: connection.requeueAfterMs,
      ...(connection.error ? { error: connection.error } : {}),
    });
    return undefined;
  }
  const { version } = connection.buildInfo;
  pass.status.coderVersion = version;

  if (options.feature && coderHasFeature(version, options.feature) === false) {
    const message = `${missingFeatureMessage(version, options.feature)}. Upgrade Coder.`;
    pass.conditions[C.Supported.type] = supportedCondition(C.Supported.reasons.CoderVersionUnsupported, message, 'False');
    stopPass(pass, R.Unsupported, message);
    return undefined;
  }
  if (options.entitlement) {
    try {
      const entitled = entitledCondition(
        await ctx.facts.entitlements(connection.controlPlane, connection.client, { signal }),
        'aibridge',
        'AI Gateway',
      );
      pass.conditions[E.Entitled.type] = entitled;
      if (entitled.status === 'False') {
        stopPass(pass, E.Ready.reasons.NotEntitled, entitled.message);
        return undefined;
      }
    } catch (err) {
      signal.throwIfAborted();
      const unknown = entitlementsUnavailableCondition(err);
      pass.conditions[E.Entitled.type] = unknown;
      stopPass(pass, E.Ready.reasons.NotEntitled, unknown.message, { requeueAfterMs: entitlementsRetryMs }, false);
      return undefined;
    }
  }
  return connection;
}

/**
 * The kind's list at `path` (`list` makes the call), which also proves the API is served: a 404 gives
 * Supported False EndpointNotFound, another failure Synced False. Undefined when the pass stopped.
 */
export async function listServed<I>(
  pass: CoderObjectPass<unknown>,
  version: string,
  path: string,
  what: string,
  list: () => Promise<I[]>,
  signal: AbortSignal,
): Promise<I[] | undefined> {
  try {
    const items = await list();
    pass.conditions[C.Supported.type] = supportedCondition(C.Supported.reasons.Supported, `Coder ${version} serves ${path}.`);
    return items;
  } catch (err) {
    signal.throwIfAborted();
    if (!isCoderNotFound(err)) {
      failPass(pass, `list the ${what}`, err);
      return undefined;
    }
    const message = `Coder ${version} answered 404 for GET ${path} although that version should serve it.`;
    pass.conditions[C.Supported.type] = supportedCondition(C.Supported.reasons.EndpointNotFound, message, 'False');
    stopPass(pass, R.Unsupported, message);
    return undefined;
  }
}

/**
 * Stops the pass with GatewayDisabledOnControlPlane when AI Gateway is off in that Coder; `consequence` says
 * what that means for this kind. A deployment config that cannot be read is no reason to block.
 */
export async function stopWhenGatewayDisabled<T extends CoderObject>(
  ctx: CoderObjectContext<T>,
  obj: T,
  connection: Connected,
  pass: CoderObjectPass<unknown>,
  consequence: string,
  signal: AbortSignal,
): Promise<void> {
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
    return;
  }
  if (enabled) return;
  stopPass(
    pass,
    R.GatewayDisabledOnControlPlane,
    `AI Gateway is off in that Coder (config.ai.bridge.enabled is false): ${consequence}. ` +
      `Set CODER_AI_GATEWAY_ENABLED=true on CoderControlPlane "${obj.metadata.namespace}/${obj.spec.controlPlaneRef.name}".`,
  );
}
