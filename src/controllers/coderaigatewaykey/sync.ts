// One pass of a CoderAIGatewayKey against Coder, after the spec check: destination consent, control plane,
// version gate, entitlement, the key list (which also proves the API is served), then minting a key when
// there is none, it was lost (gone from Coder, or a destination lost or changed it) or rotation is due,
// writing it to every destination, and deleting the previous key once its grace period is over.
import {
  CoderAIGatewayKeyConditions as C,
  type CoderAIGatewayKey,
  type CoderAIGatewayKeyStatus,
} from '../../../generated/types/coderaigatewaykey.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import { nowTime, type ConditionInput } from '../../runtime/conditions.ts';
import { connectToCoder } from '../shared/coder-connection.ts';
import { syncFailure } from '../shared/coder-sync-failure.ts';
import { coderVersionAtLeast } from '../shared/coder-version.ts';
import { parseDuration } from '../shared/duration.ts';
import { entitledCondition, entitlementsUnavailableCondition } from '../shared/entitled-condition.ts';
import { eventTarget } from '../shared/event-target.ts';
import { secretHash } from '../shared/secret-hash.ts';
import type { GatewayKeyContext } from './context.ts';
import { destinationConsent, destinationsOf, holdsKey, writeKey, type Destination } from './destinations.ts';
import { connectedCondition, type Blocker } from './status.ts';

/** The first Coder version with AI Gateway keys. */
export const gatewayKeysSince = 'v2.36.0';
const keysPath = '/api/v2/ai-gateway/keys';
const entitlementsRetryMs = 30_000;
const defaultGraceMs = 10 * 60_000;

export interface SyncPass {
  conditions: Record<string, ConditionInput | undefined>;
  status: Partial<CoderAIGatewayKeyStatus>;
  blocker?: Blocker;
  requeueAfterMs?: number;
  error?: Error;
}

export function keyNameOf(k: CoderAIGatewayKey): string {
  return k.spec.keyName ?? k.metadata.name ?? '';
}

export async function syncGatewayKey(ctx: GatewayKeyContext, k: CoderAIGatewayKey, signal: AbortSignal): Promise<SyncPass> {
  const pass: SyncPass = { conditions: {}, status: {}, requeueAfterMs: ctx.resyncMs };
  const stop = (reason: Blocker['reason'], message: string, extra: Partial<SyncPass> = {}): SyncPass =>
    Object.assign(pass, { blocker: { reason, message } }, extra);
  const R = C.Ready.reasons;
  const namespace = k.metadata.namespace ?? '';

  const destinations = destinationsOf(k, (name) => ctx.caches.secrets.get(namespace, name));
  const consent = destinationConsent(k, destinations);
  pass.conditions[C.CredentialSecretReady.type] = consent;
  if (consent.status !== 'True') return stop(R.CredentialSecretNotReady, consent.message, { requeueAfterMs: undefined });

  const connection = await connectToCoder(ctx, ctx.caches, ctx.facts, k, signal);
  pass.conditions[C.ControlPlaneReady.type] = connection.condition;
  if (!connection.connected) {
    return stop(R.ControlPlaneNotReady, connection.condition.message, {
      requeueAfterMs: connection.requeueAfterMs,
      ...(connection.error ? { error: connection.error } : {}),
    });
  }
  const { client, controlPlane, buildInfo } = connection;
  pass.status.coderVersion = buildInfo.version;

  if (coderVersionAtLeast(buildInfo.version, gatewayKeysSince) === false) {
    const message = `Coder ${buildInfo.version} has no AI Gateway keys API; it needs ${gatewayKeysSince} or newer. Upgrade Coder.`;
    pass.conditions[C.Supported.type] = {
      type: C.Supported.type,
      status: 'False',
      reason: C.Supported.reasons.CoderVersionUnsupported,
      message,
    };
    return stop(R.Unsupported, message);
  }
  try {
    const entitled = entitledCondition(await ctx.facts.entitlements(controlPlane, client, { signal }), 'aibridge', 'AI Gateway');
    pass.conditions[C.Entitled.type] = entitled;
    if (entitled.status === 'False') return stop(R.NotEntitled, entitled.message);
  } catch (err) {
    signal.throwIfAborted();
    const unknown = entitlementsUnavailableCondition(err);
    pass.conditions[C.Entitled.type] = unknown;
    return stop(R.NotEntitled, unknown.message, { requeueAfterMs: entitlementsRetryMs });
  }

  let keys: Schemas['AIGatewayKey'][];
  try {
    keys = await client.request('GET', keysPath, { signal });
  } catch (err) {
    signal.throwIfAborted();
    if (isCoderNotFound(err)) {
      const message = `Coder ${buildInfo.version} answered 404 for GET ${keysPath} although that version should serve it.`;
      pass.conditions[C.Supported.type] = {
        type: C.Supported.type,
        status: 'False',
        reason: C.Supported.reasons.EndpointNotFound,
        message,
      };
      return stop(R.Unsupported, message);
    }
    return failed(pass, 'list the AI Gateway keys', err);
  }
  pass.conditions[C.Supported.type] = {
    type: C.Supported.type,
    status: 'True',
    reason: C.Supported.reasons.Supported,
    message: `Coder ${buildInfo.version} serves ${keysPath}.`,
  };

  const current = await ensureKey(ctx, client, k, keys, destinations, signal, pass);
  if (!current) return pass;
  await retirePreviousKey(ctx, client, k, signal, pass);
  if (pass.blocker) return pass;

  pass.conditions[C.Connected.type] = connectedCondition(current.last_used_at, ctx.now());
  pass.conditions[C.Synced.type] = {
    type: C.Synced.type,
    status: 'True',
    reason: C.Synced.reasons.Applied,
    message: `The key "${current.name}" exists in Coder and every destination Secret holds it.`,
  };
  try {
    const config = await ctx.facts.deploymentConfig(controlPlane, client, { signal });
    if ((config.config.ai as { bridge?: { enabled?: boolean } } | undefined)?.bridge?.enabled === false) {
      return stop(
        R.GatewayDisabledOnControlPlane,
        `AI Gateway is off in that Coder (config.ai.bridge.enabled is false); standalone gateways cannot connect. ` +
          `Set CODER_AI_GATEWAY_ENABLED=true on CoderControlPlane "${namespace}/${k.spec.controlPlaneRef.name}".`,
      );
    }
  } catch (err) {
    signal.throwIfAborted();
    ctx.logger.debug({ err: (err as Error).message, key: k.metadata.name }, 'could not read the deployment config; AI Gateway taken as on');
  }
  return pass;
}

/** The key every destination holds, minting and writing a new one when needed; undefined (blocker set) when that failed. */
async function ensureKey(
  ctx: GatewayKeyContext,
  client: CoderClient,
  k: CoderAIGatewayKey,
  keys: Schemas['AIGatewayKey'][],
  destinations: Destination[],
  signal: AbortSignal,
  pass: SyncPass,
): Promise<Schemas['AIGatewayKey'] | undefined> {
  const uid = k.metadata.uid ?? '';
  const status = k.status ?? {};
  const now = ctx.now();
  const current = status.coderID ? keys.find((key) => key.id === status.coderID) : undefined;
  const rotateAfterMs = parseDuration(k.spec.rotation?.rotateAfter);
  const createdAt = current ? new Date(current.created_at).getTime() : undefined;
  const rotationDue = rotateAfterMs !== undefined && createdAt !== undefined && createdAt + rotateAfterMs <= now.getTime();
  const lost = !current || destinations.some((d) => !holdsKey(k, d, status.secretHash));

  // A key minted by an earlier pass stays in memory until the cache shows the status that names it: a
  // reconcile on a cache one write behind must neither mint again nor lose the key before it is written.
  let pending = ctx.pending.get(uid);
  if (pending && (status.coderID === pending.id || !keys.some((key) => key.id === pending!.id))) {
    ctx.pending.delete(uid);
    pending = undefined;
  }
  if (!pending && !lost && !rotationDue) {
    Object.assign(pass.status, keptStatus(k, current!, destinations, rotateAfterMs));
    if (rotateAfterMs !== undefined)
      pass.requeueAfterMs = Math.min(pass.requeueAfterMs ?? Infinity, Math.max(1000, createdAt! + rotateAfterMs - now.getTime()));
    return current;
  }

  if (!pending) {
    const keyName = keyNameOf(k);
    let rotation = status.coderID ? (status.rotation ?? 0) + 1 : (status.rotation ?? 0);
    const nameOf = (n: number) => (n === 0 ? keyName : `${keyName}-r${n}`);
    if (rotation === 0 && keys.some((key) => key.name === keyName)) {
      const message =
        `Coder already has an AI Gateway key named "${keyName}" that this object did not create; nothing was changed. ` +
        `Set spec.keyName or delete that key in Coder.`;
      pass.conditions[C.Synced.type] = { type: C.Synced.type, status: 'False', reason: C.Synced.reasons.AlreadyExists, message };
      pass.blocker = { reason: C.Ready.reasons.SyncFailed, message };
      return undefined;
    }
    // A name left by an earlier attempt (minted, never recorded) is skipped, not reused: Coder keeps names unique.
    while (rotation > 0 && keys.some((key) => key.name === nameOf(rotation))) rotation++;
    try {
      const created = await client.request('POST', keysPath, { body: { name: nameOf(rotation) }, signal });
      pending = {
        id: created.id,
        name: created.name,
        key: created.key,
        keyPrefix: created.key_prefix,
        createdAt: created.created_at,
        rotation,
      };
    } catch (err) {
      signal.throwIfAborted();
      failed(pass, `create the AI Gateway key "${nameOf(rotation)}"`, err);
      return undefined;
    }
    ctx.pending.set(uid, pending);
    const why = !current
      ? status.coderID
        ? 'the previous key is gone from Coder'
        : 'first key'
      : rotationDue
        ? 'rotation is due'
        : 'a destination lost the key';
    await ctx.events.record(
      eventTarget(k),
      'Normal',
      'KeyMinted',
      'CreateAIGatewayKey',
      `Created the AI Gateway key "${pending.name}" in Coder (${why}).`,
    );
  }

  const hash = secretHash(uid, pending.key);
  for (const d of destinations) {
    if (holdsKey(k, d, hash)) continue;
    try {
      await writeKey(ctx.writer, k, d, pending.key);
    } catch (err) {
      const message = `Could not write the key "${pending.name}" to Secret "${k.metadata.namespace}/${d.name}": ${(err as Error).message}. It is kept in Coder and written on the next attempt.`;
      pass.conditions[C.Synced.type] = { type: C.Synced.type, status: 'False', reason: C.Synced.reasons.SecretWriteFailed, message };
      pass.blocker = { reason: C.Ready.reasons.SyncFailed, message };
      pass.error = err instanceof Error ? err : new Error(String(err));
      return undefined;
    }
  }
  const previous = current && current.id !== pending.id ? current : undefined;
  // A rotation during another one's grace period retires the older key at once.
  if (previous && status.previousKey?.coderID) await deleteKey(client, status.previousKey.coderID, signal).catch(() => undefined);
  const graceMs = parseDuration(k.spec.rotation?.gracePeriod) ?? defaultGraceMs;
  Object.assign(pass.status, {
    coderID: pending.id,
    coderKeyName: pending.name,
    rotation: pending.rotation,
    keyPrefix: pending.keyPrefix,
    createdAt: nowTime(new Date(pending.createdAt)),
    secretHash: hash,
    destinations: destinations.map((d) => ({ name: d.name, key: d.key, managed: d.managed })),
    lastSyncedTime: nowTime(ctx.now()),
    ...(rotateAfterMs !== undefined ? { nextRotationTime: nowTime(new Date(new Date(pending.createdAt).getTime() + rotateAfterMs)) } : {}),
    ...(previous
      ? { previousKey: { coderID: previous.id, coderKeyName: previous.name, deleteAfter: nowTime(new Date(now.getTime() + graceMs)) } }
      : {}),
  });
  return { id: pending.id, name: pending.name, key_prefix: pending.keyPrefix, created_at: pending.createdAt, last_used_at: null };
}

function keptStatus(
  k: CoderAIGatewayKey,
  current: Schemas['AIGatewayKey'],
  destinations: Destination[],
  rotateAfterMs: number | undefined,
) {
  return {
    coderKeyName: current.name,
    keyPrefix: current.key_prefix,
    createdAt: nowTime(new Date(current.created_at)),
    ...(current.last_used_at ? { lastUsedAt: nowTime(new Date(current.last_used_at)) } : {}),
    destinations: destinations.map((d) => ({ name: d.name, key: d.key, managed: d.managed })),
    ...(rotateAfterMs !== undefined ? { nextRotationTime: nowTime(new Date(new Date(current.created_at).getTime() + rotateAfterMs)) } : {}),
    ...(k.status?.rotation === undefined ? { rotation: 0 } : {}),
  };
}

/** Deletes the previous key once its grace period is over; otherwise asks to look again then. */
async function retirePreviousKey(
  ctx: GatewayKeyContext,
  client: CoderClient,
  k: CoderAIGatewayKey,
  signal: AbortSignal,
  pass: SyncPass,
): Promise<void> {
  const previous = pass.status.previousKey ?? k.status?.previousKey;
  if (!previous?.coderID) return;
  const due = new Date(previous.deleteAfter ?? 0).getTime() - ctx.now().getTime();
  if (due > 0) {
    pass.requeueAfterMs = Math.min(pass.requeueAfterMs ?? Infinity, due + 1000);
    return;
  }
  try {
    await deleteKey(client, previous.coderID, signal);
  } catch (err) {
    signal.throwIfAborted();
    failed(pass, `delete the previous AI Gateway key "${previous.coderKeyName}"`, err);
    return;
  }
  // null removes the field in the status merge patch.
  pass.status.previousKey = null as unknown as undefined;
  await ctx.events.record(
    eventTarget(k),
    'Normal',
    'KeyRetired',
    'DeleteAIGatewayKey',
    `Deleted the previous AI Gateway key "${previous.coderKeyName}" in Coder.`,
  );
}

/** Deletes a key; one that is gone already counts as deleted. */
export async function deleteKey(client: CoderClient, id: string, signal: AbortSignal): Promise<void> {
  try {
    await client.request('DELETE', '/api/v2/ai-gateway/keys/{aiGatewayKey}', { params: { aiGatewayKey: id }, signal });
  } catch (err) {
    if (!isCoderNotFound(err)) throw err;
  }
}

function failed(pass: SyncPass, action: string, err: unknown): SyncPass {
  const failure = syncFailure(action, err);
  pass.conditions[C.Synced.type] = failure.condition;
  pass.blocker = { reason: C.Ready.reasons.SyncFailed, message: failure.condition.message };
  if (failure.retry) pass.error = err instanceof Error ? err : new Error(String(err));
  return pass;
}
