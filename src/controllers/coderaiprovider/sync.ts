// Making Coder hold a CoderAIProvider, once its providers are listed: create, adopt or update (never one that
// another CoderAIProvider manages: coder-id-claims.ts), then the routes clients use. Each gives the outcome of
// its step: the status fields it learned, or the problem it stopped on.
import {
  CoderAIProviderConditions as C,
  type CoderAIProvider,
  type CoderAIProviderConditionChanges,
  type CoderAIProviderStatus,
} from '../../../generated/types/coderaiprovider.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderClient } from '../../coder/client.ts';
import { nowTime } from '../../runtime/conditions.ts';
import { coderNameKey } from '../shared/coder-object/coder-id-claims.ts';
import type { Connected } from '../shared/coder-object/opening-steps.ts';
import { managedByAnother, syncFailed, syncRefused } from '../shared/coder-object/step-outcomes.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';
import { secretHash } from '../shared/coder-object/secret-hash.ts';
import type { ProviderContext } from './context.ts';
import { bedrockSecretFields, type BedrockSecretField, type DesiredProvider } from './desired.ts';
import { appliedKeys, createRequest, settingsConflict, updateRequest, type BedrockSecretInputs, type KeyInput } from './update-request.ts';

export const providersPath = '/api/v2/ai/providers';

type Outcome = StepOutcome<CoderAIProviderStatus, CoderAIProviderConditionChanges>;

/** The provider's keys and Bedrock credentials with their hashes, and status.appliedSecretHashes once they are written. */
interface SecretInputs {
  keys: KeyInput[];
  secrets: BedrockSecretInputs;
  hashesAfterWrite: Record<string, string>;
}

function secretInputs(p: CoderAIProvider, values: Map<string, string>): SecretInputs {
  const uid = p.metadata.uid;
  const keys: KeyInput[] = (p.spec.apiKeys ?? []).map((k, i) => {
    const value = values.get(`apiKeys[${i}]`)!;
    return { secretName: k.secretKeyRef.name, secretKey: k.secretKeyRef.key || 'api-key', value, hash: secretHash(uid, value) };
  });
  const secrets: BedrockSecretInputs = {};
  for (const field of Object.keys(bedrockSecretFields) as BedrockSecretField[]) {
    const value = values.get(field);
    if (value !== undefined) secrets[field] = { value, hash: secretHash(uid, value) };
  }
  const appliedHashes = Object.fromEntries(Object.entries(secrets).map(([field, s]) => [field, s.hash]));
  const previous = (p.status?.appliedSecretHashes ?? {}) as Record<string, string | undefined>;
  // Hashes of fields spec no longer names are removed (null in the merge patch).
  const hashesAfterWrite = { ...Object.fromEntries(Object.keys(previous).map((f) => [f, null])), ...appliedHashes } as Record<
    string,
    string
  >;
  return { keys, secrets, hashesAfterWrite };
}

/** Creates, adopts or updates the provider named `desired.name` among `providers` (Coder's list). */
export async function applyProvider(
  ctx: ProviderContext,
  { client, controlPlane, buildInfo }: Connected,
  p: CoderAIProvider,
  desired: DesiredProvider,
  providers: Schemas['AIProvider'][],
  values: Map<string, string>,
  signal: AbortSignal,
): Promise<Outcome> {
  const nameKey = coderNameKey(buildInfo.deployment_id, controlPlane, desired.name);
  const inputs = secretInputs(p, values);
  const existing = providers.find((x) => x.name === desired.name);
  const what = `The provider "${desired.name}"`;
  if (!existing) {
    const creator = ctx.claims.startCreate(p, nameKey);
    if (creator) return managedByAnother(creator, what, 'spec.providerName');
    let created;
    try {
      created = await client.request('POST', providersPath, { body: createRequest(desired, inputs.keys, inputs.secrets), signal });
    } catch (err) {
      ctx.claims.endCreate(p, nameKey);
      signal.throwIfAborted();
      return syncFailed(`create the provider "${desired.name}"`, err);
    }
    ctx.claims.endCreate(p, nameKey, created.id);
    await ctx.events.record(
      eventTarget(p),
      'Normal',
      'ProviderCreated',
      'CreateAIProvider',
      `Created the provider "${desired.name}" in Coder.`,
    );
    return {
      status: {
        coderID: created.id,
        apiKeys: appliedKeys(created, inputs.keys),
        appliedSecretHashes: inputs.hashesAfterWrite,
        lastSyncedTime: nowTime(ctx.now()),
      },
    };
  }

  const ownID = p.status?.coderID ?? ctx.claims.createdBy(p);
  const ours = ownID === existing.id;
  const holder = ctx.claims.holderOf(p, existing.id, nameKey, ownID);
  if (holder) {
    // Status forgets the provider: kept there, deleting this object would delete the holder's provider in Coder.
    ctx.claims.release(p);
    const forgotten = { coderID: undefined, apiKeys: undefined, appliedSecretHashes: undefined, routes: undefined };
    return { status: forgotten, ...managedByAnother(holder, what, 'spec.providerName') };
  }
  const refusal = adoptionRefusal(p, existing, desired, ours);
  if (refusal) return refusal;

  // Nothing awaited since the check: the claim is this object's.
  ctx.claims.claim(p, existing.id, nameKey, ownID);
  // Created by this operator, whose status write failed: it matches spec.
  if (!p.status?.coderID && ours) return { status: { coderID: existing.id } };
  return updateProvider(ctx, client, p, existing, desired, inputs, ours, signal);
}

/** Why a provider Coder has may not be taken over or changed as spec says, if it may not. */
function adoptionRefusal(
  p: CoderAIProvider,
  existing: Schemas['AIProvider'],
  desired: DesiredProvider,
  ours: boolean,
): Outcome | undefined {
  if (!ours && !p.spec.adoptExisting) {
    const message =
      `Coder already has a provider named "${desired.name}" that this object did not create; nothing was changed. ` +
      `Set spec.adoptExisting to true to take it over, or choose another spec.providerName.`;
    return syncRefused(C.Synced.reasons.AlreadyExists, message);
  }
  if (existing.type !== desired.type) {
    const message =
      `The provider "${desired.name}" in Coder has type ${existing.type}, spec.type is ${desired.type}, and Coder cannot change a type. ` +
      `Delete one of them.`;
    return syncRefused(C.Synced.reasons.ImmutableFieldConflict, message);
  }
  const heldSettings = settingsConflict(existing, desired);
  if (heldSettings) {
    const message =
      `The provider "${desired.name}" in Coder has settings of type ${heldSettings} that spec no longer sets, and Coder ` +
      `cannot remove a provider's settings through its API (it takes settings null as not sent); nothing was changed. ` +
      `Set ${heldSettings === 'upstream-headers' ? 'spec.upstreamHeaders' : 'spec.bedrock'} again, or delete this object ` +
      `(which deletes the provider in Coder) and create it again.`;
    return syncRefused(C.Synced.reasons.ImmutableFieldConflict, message);
  }
  return undefined;
}

/** The smallest update that makes `existing` match; an adopted provider's keys and credentials are unknown, so every one is sent. */
async function updateProvider(
  ctx: ProviderContext,
  client: CoderClient,
  p: CoderAIProvider,
  existing: Schemas['AIProvider'],
  desired: DesiredProvider,
  { keys, secrets, hashesAfterWrite }: SecretInputs,
  ours: boolean,
  signal: AbortSignal,
): Promise<Outcome> {
  const update = updateRequest(existing, desired, keys, secrets, ours ? p.status : undefined);
  if (!update) return { status: { coderID: existing.id } };
  let updated;
  try {
    updated = await client.request('PATCH', '/api/v2/ai/providers/{aiProvider}', {
      params: { aiProvider: existing.id },
      body: update,
      signal,
    });
  } catch (err) {
    signal.throwIfAborted();
    return { status: { coderID: existing.id }, ...syncFailed(`update the provider "${desired.name}"`, err) };
  }
  const fields = Object.keys(update).join(', ');
  await ctx.events.record(
    eventTarget(p),
    'Normal',
    'ProviderUpdated',
    'UpdateAIProvider',
    `Updated ${fields} of the provider "${desired.name}" in Coder.`,
  );
  return {
    status: {
      coderID: existing.id,
      apiKeys: update.api_keys ? appliedKeys(updated, keys, update.api_keys) : p.status?.apiKeys,
      appliedSecretHashes: update.settings !== undefined ? hashesAfterWrite : p.status?.appliedSecretHashes,
      lastSyncedTime: nowTime(ctx.now()),
    },
  };
}

/** status.providerName and the routes clients reach the provider at, on Coder's dashboard URL. */
export function providerRoutes({ controlPlane, buildInfo }: Connected, desired: DesiredProvider): Outcome {
  const base = (buildInfo.dashboard_url || controlPlane.status?.url || '').replace(/\/+$/, '');
  return {
    status: {
      providerName: desired.name,
      routes: { embedded: `${base}/api/v2/ai-gateway/${desired.name}/`, legacy: `${base}/api/v2/aibridge/${desired.name}/` },
    },
  };
}
