// What a kind that keeps an object in a control plane's Coder (the AI kinds) asks that Coder after the opening
// steps: its list, which also proves the kind's API is served, and whether AI Gateway is on there.
import { CoderObjectReadyCondition as Ready, SupportedCondition as Supported } from '../../../../generated/types/conditions.ts';
import { isCoderNotFound } from '../../../coder/error-predicates.ts';
import type { ConditionWith } from '../../../runtime/conditions.ts';
import type { SyncFailure } from './coder-sync-failure.ts';
import type { ChangeOf } from '../reconcile/outcome.ts';
import type { CoderObject, CoderObjectContext } from './context.ts';
import type { Connected } from './opening-steps.ts';
import { stopWith, supportedCondition, syncFailed, type CoderObjectOutcome, type Found, type ReadyWith } from './step-outcomes.ts';

const R = Ready.reasons;

/** Supported as the list tells it, or Synced False when the list failed otherwise; Ready when it stops. */
type ListChanges = ChangeOf<
  | ConditionWith<typeof Supported.type, (typeof Supported.reasons)['Supported' | 'EndpointNotFound']>
  | SyncFailure['condition']
  | ReadyWith<(typeof R)['Unsupported' | 'SyncFailed']>
>;

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
): Promise<Found<{ items: I[] }, CoderObjectOutcome<ListChanges>>> {
  const { version } = connection.buildInfo;
  let items: I[];
  try {
    items = await list();
  } catch (err) {
    signal.throwIfAborted();
    if (!isCoderNotFound(err)) return syncFailed(`list the ${what}`, err);
    const message = `Coder ${version} answered 404 for GET ${path} although that version should serve it.`;
    return {
      conditions: { [Supported.type]: supportedCondition(Supported.reasons.EndpointNotFound, message, 'False') },
      stop: stopWith(R.Unsupported, message),
    };
  }
  return {
    conditions: { [Supported.type]: supportedCondition(Supported.reasons.Supported, `Coder ${version} serves ${path}.`) },
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
): Promise<CoderObjectOutcome<ChangeOf<ReadyWith<typeof R.GatewayDisabledOnControlPlane>>>> {
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
