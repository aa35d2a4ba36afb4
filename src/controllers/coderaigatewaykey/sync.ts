// The key of a CoderAIGatewayKey in Coder, once Coder's keys are listed: minting a key when there is none, it
// was lost (gone from Coder, or a destination lost or changed it), rotation is due or requested, writing it to
// every destination, and deleting the previous key once its grace period is over. Each gives the outcome of its
// step: the status fields it learned, when to look again, or the problem it stopped on.
import {
  CoderAIGatewayKeyConditions as C,
  type CoderAIGatewayKey,
  type CoderAIGatewayKeyConditionChanges,
  type CoderAIGatewayKeyStatus,
} from '../../../generated/types/coderaigatewaykey.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import { nowTime } from '../../runtime/conditions.ts';
import { parseDuration } from '../../runtime/duration.ts';
import { syncFailed, syncRefused, type Found } from '../shared/coder-object/step-outcomes.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';
import { secretHash } from '../shared/coder-object/secret-hash.ts';
import type { GatewayKeyContext } from './context.ts';
import { holdsKey, writeKey, type Destination } from './destinations.ts';

export const keysPath = '/api/v2/ai-gateway/keys';
const defaultGraceMs = 10 * 60_000;

type Outcome = StepOutcome<CoderAIGatewayKeyStatus, CoderAIGatewayKeyConditionChanges>;

export function keyNameOf(k: CoderAIGatewayKey): string {
  return k.spec.keyName ?? k.metadata.name ?? '';
}

/** The key every destination holds (`current`), minting and writing a new one when needed. */
export async function ensureKey(
  ctx: GatewayKeyContext,
  client: CoderClient,
  k: CoderAIGatewayKey,
  keys: Schemas['AIGatewayKey'][],
  destinations: Destination[],
  signal: AbortSignal,
): Promise<Found<{ current: Schemas['AIGatewayKey'] }, Outcome>> {
  const uid = k.metadata.uid ?? '';
  const status = k.status ?? {};
  const now = ctx.now();
  const current = status.coderID ? keys.find((key) => key.id === status.coderID) : undefined;
  const rotateAfterMs = parseDuration(k.spec.rotation?.rotateAfter);
  const createdAt = current ? new Date(current.created_at).getTime() : undefined;
  const rotationDue = rotateAfterMs !== undefined && createdAt !== undefined && createdAt + rotateAfterMs <= now.getTime();
  const lost = !current || destinations.some((d) => !holdsKey(k, d, status.secretHash));
  const requestID = k.spec.rotation?.requestID;
  const rotationRequested = current !== undefined && requestID !== undefined && requestID !== status.rotationRequestID;

  // A key minted by an earlier reconcile stays in memory until the status names it (Coder never shows a key
  // again): after a failed destination or status write, the next reconcile must neither mint again nor lose it.
  let pending = ctx.pending.get(uid);
  if (pending && (status.coderID === pending.id || !keys.some((key) => key.id === pending!.id))) {
    ctx.pending.delete(uid);
    pending = undefined;
  }
  if (!pending && !lost && !rotationDue && !rotationRequested) {
    const rotationIn = rotateAfterMs !== undefined ? Math.max(1000, createdAt! + rotateAfterMs - now.getTime()) : undefined;
    return { status: keptStatus(k, current!, destinations, rotateAfterMs), requeueAfterMs: rotationIn, current: current! };
  }

  if (!pending) {
    const keyName = keyNameOf(k);
    let rotation = status.coderID ? (status.rotation ?? 0) + 1 : (status.rotation ?? 0);
    const nameOf = (n: number) => (n === 0 ? keyName : `${keyName}-r${n}`);
    if (rotation === 0 && keys.some((key) => key.name === keyName)) {
      const message =
        `Coder already has an AI Gateway key named "${keyName}" that this object did not create; nothing was changed. ` +
        `Set spec.keyName or delete that key in Coder.`;
      return syncRefused(C.Synced.reasons.AlreadyExists, message);
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
      return syncFailed(`create the AI Gateway key "${nameOf(rotation)}"`, err);
    }
    ctx.pending.set(uid, pending);
    const why = !current
      ? status.coderID
        ? 'the previous key is gone from Coder'
        : 'first key'
      : rotationRequested
        ? `rotation requested by spec.rotation.requestID "${requestID}"`
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
      return { ...syncRefused(C.Synced.reasons.SecretWriteFailed, message), error: err instanceof Error ? err : new Error(String(err)) };
    }
  }
  const previous = current && current.id !== pending.id ? current : undefined;
  // A rotation during another one's grace period retires the older key at once.
  if (previous && status.previousKey?.coderID) await deleteKey(client, status.previousKey.coderID, signal).catch(() => undefined);
  const graceMs = parseDuration(k.spec.rotation?.gracePeriod) ?? defaultGraceMs;
  const minted: Outcome['status'] = {
    coderID: pending.id,
    coderKeyName: pending.name,
    rotation: pending.rotation,
    keyPrefix: pending.keyPrefix,
    createdAt: nowTime(new Date(pending.createdAt)),
    secretHash: hash,
    ...(requestID !== undefined ? { rotationRequestID: requestID } : {}),
    destinations: destinations.map((d) => ({ name: d.name, key: d.key, managed: d.managed })),
    lastSyncedTime: nowTime(ctx.now()),
    ...(rotateAfterMs !== undefined ? { nextRotationTime: nowTime(new Date(new Date(pending.createdAt).getTime() + rotateAfterMs)) } : {}),
    ...(previous
      ? { previousKey: { coderID: previous.id, coderKeyName: previous.name, deleteAfter: nowTime(new Date(now.getTime() + graceMs)) } }
      : {}),
  };
  return { status: minted, current: { id: pending.id, name: pending.name, key_prefix: pending.keyPrefix, created_at: pending.createdAt } };
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
    ...(current.last_heartbeat_at ? { lastUsedAt: nowTime(new Date(current.last_heartbeat_at)) } : {}),
    destinations: destinations.map((d) => ({ name: d.name, key: d.key, managed: d.managed })),
    ...(rotateAfterMs !== undefined ? { nextRotationTime: nowTime(new Date(new Date(current.created_at).getTime() + rotateAfterMs)) } : {}),
    ...(k.status?.rotation === undefined ? { rotation: 0 } : {}),
  };
}

/** Deletes the previous key once its grace period is over; otherwise asks to look again then. */
export async function retirePreviousKey(
  ctx: GatewayKeyContext,
  client: CoderClient,
  k: CoderAIGatewayKey,
  previous: CoderAIGatewayKeyStatus['previousKey'],
  signal: AbortSignal,
): Promise<Outcome> {
  if (!previous?.coderID) return {};
  const due = new Date(previous.deleteAfter ?? 0).getTime() - ctx.now().getTime();
  if (due > 0) return { requeueAfterMs: due + 1000 };
  try {
    await deleteKey(client, previous.coderID, signal);
  } catch (err) {
    signal.throwIfAborted();
    return syncFailed(`delete the previous AI Gateway key "${previous.coderKeyName}"`, err);
  }
  await ctx.events.record(
    eventTarget(k),
    'Normal',
    'KeyRetired',
    'DeleteAIGatewayKey',
    `Deleted the previous AI Gateway key "${previous.coderKeyName}" in Coder.`,
  );
  // null removes the field in the status merge patch.
  return { status: { previousKey: null as unknown as undefined } };
}

/** Deletes a key; one that is gone already counts as deleted. */
export async function deleteKey(client: CoderClient, id: string, signal: AbortSignal): Promise<void> {
  try {
    await client.request('DELETE', '/api/v2/ai-gateway/keys/{aiGatewayKey}', { params: { aiGatewayKey: id }, signal });
  } catch (err) {
    if (!isCoderNotFound(err)) throw err;
  }
}
