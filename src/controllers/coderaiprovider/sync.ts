// One pass of a CoderAIProvider against Coder, after the spec check: credentials, control plane, version
// gate, the providers list (which also proves the API is served), then create, adopt or update (never one that
// another CoderAIProvider manages: coder-id-claims.ts), and the AI Gateway switch. Each step either goes on or stops with the problem Ready reports. No license is checked:
// coder/coder v2.36.0 coderd/coderd.go mounts /api/v2/ai/providers (coderd/ai_providers.go, AGPL) behind the
// API-key middleware only, and the providers serve Coder Agents (coderd/x/chatd) as well as AI Gateway.
import {
  CoderAIProviderConditions as C,
  type CoderAIProvider,
  type CoderAIProviderStatus,
} from '../../../generated/types/coderaiprovider.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderClient } from '../../coder/client.ts';
import { nowTime } from '../../runtime/conditions.ts';
import {
  appliedCondition,
  failPass,
  listServed,
  newPass,
  openPass,
  refusePass,
  stopWhenGatewayDisabled,
  type CoderObjectPass,
} from '../shared/coder-object-pass.ts';
import { coderNameKey, refuseManagedByAnother } from '../shared/coder-id-claims.ts';
import { resolveCredentialInputs } from '../shared/credential-inputs.ts';
import { eventTarget } from '../shared/event-target.ts';
import { secretHash } from '../shared/secret-hash.ts';
import type { ProviderContext } from './context.ts';
import { bedrockSecretFields, credentialRefs, desiredProvider, type BedrockSecretField, type DesiredProvider } from './desired.ts';
import { appliedKeys, createRequest, settingsConflict, updateRequest, type BedrockSecretInputs, type KeyInput } from './update-request.ts';

const providersPath = '/api/v2/ai/providers';
/** A condition type CoderAIProvider no longer declares (see syncProvider). */
const retiredEntitled = 'Entitled';

export type SyncPass = CoderObjectPass<CoderAIProviderStatus, Exclude<(typeof C.Ready.reasons)[keyof typeof C.Ready.reasons], 'Available'>>;

export async function syncProvider(ctx: ProviderContext, p: CoderAIProvider, signal: AbortSignal): Promise<SyncPass> {
  const pass: SyncPass = newPass(ctx.resyncMs);
  const namespace = p.metadata.namespace ?? '';
  const credentials = resolveCredentialInputs(p, credentialRefs(p), (name) => ctx.caches.secrets.get(namespace, name));
  // Operators before this one gated providers on the aibridge entitlement; their Entitled condition goes.
  pass.conditions[retiredEntitled] = undefined;
  const connection = await openPass(ctx, p, pass, { credentials: credentials.condition, feature: 'aiProviders' }, signal);
  if (!connection || !credentials.ready) return pass;
  const { client, controlPlane, buildInfo } = connection;
  const providers = await listServed(
    pass,
    buildInfo.version,
    providersPath,
    'AI providers',
    () => client.request('GET', providersPath, { signal }),
    signal,
  );
  if (!providers) return pass;

  const desired = desiredProvider(p, buildInfo.version);
  const nameKey = coderNameKey(buildInfo.deployment_id, controlPlane, desired.name);
  if (!(await applyProvider(ctx, client, p, desired, nameKey, providers, credentials.values, signal, pass))) return pass;

  const base = (buildInfo.dashboard_url || controlPlane.status?.url || '').replace(/\/+$/, '');
  pass.status.providerName = desired.name;
  pass.status.routes = { embedded: `${base}/api/v2/ai-gateway/${desired.name}/`, legacy: `${base}/api/v2/aibridge/${desired.name}/` };

  if (desired.unsupported.length) {
    const message = `Applied every field except ${desired.unsupported.join('; ')}. Remove the field, or upgrade Coder where a release has it.`;
    return refusePass(pass, C.Synced.reasons.FieldUnsupported, message);
  }
  pass.conditions[C.Synced.type] = appliedCondition(`Coder holds the provider "${desired.name}" as spec describes.`);
  await stopWhenGatewayDisabled(
    ctx,
    p,
    connection,
    pass,
    'the provider is stored in Coder, but neither AI Gateway clients nor Coder Agents (which Coder starts only with AI Gateway on) can use it',
    signal,
  );
  return pass;
}

/** Creates, adopts or updates the provider; false (with Synced and the blocker set) when it could not. */
async function applyProvider(
  ctx: ProviderContext,
  client: CoderClient,
  p: CoderAIProvider,
  desired: DesiredProvider,
  nameKey: string,
  providers: Schemas['AIProvider'][],
  values: Map<string, string>,
  signal: AbortSignal,
  pass: SyncPass,
): Promise<boolean> {
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
  const existing = providers.find((x) => x.name === desired.name);

  const what = `The provider "${desired.name}"`;
  if (!existing) {
    const creator = ctx.claims.startCreate(p, nameKey);
    if (creator) {
      refuseManagedByAnother(pass, creator, what, 'spec.providerName');
      return false;
    }
    let created;
    try {
      created = await client.request('POST', providersPath, { body: createRequest(desired, keys, secrets), signal });
    } catch (err) {
      ctx.claims.endCreate(p, nameKey);
      signal.throwIfAborted();
      failPass(pass, `create the provider "${desired.name}"`, err);
      return false;
    }
    ctx.claims.endCreate(p, nameKey, created.id);
    ctx.createdIDs.set(uid ?? '', created.id);
    Object.assign(pass.status, {
      coderID: created.id,
      apiKeys: appliedKeys(created, keys),
      appliedSecretHashes: hashesAfterWrite,
      lastSyncedTime: nowTime(ctx.now()),
    });
    await ctx.events.record(
      eventTarget(p),
      'Normal',
      'ProviderCreated',
      'CreateAIProvider',
      `Created the provider "${desired.name}" in Coder.`,
    );
    return true;
  }

  const ownID = p.status?.coderID ?? ctx.createdIDs.get(uid ?? '');
  const ours = ownID === existing.id;
  const holder = ctx.claims.holderOf(p, existing.id, nameKey, ownID);
  if (holder) {
    // Status forgets the provider: kept there, deleting this object would delete the holder's provider in Coder.
    ctx.createdIDs.delete(uid ?? '');
    Object.assign(pass.status, { coderID: undefined, apiKeys: undefined, appliedSecretHashes: undefined, routes: undefined });
    refuseManagedByAnother(pass, holder, what, 'spec.providerName');
    return false;
  }
  if (!ours && !p.spec.adoptExisting) {
    const message =
      `Coder already has a provider named "${desired.name}" that this object did not create; nothing was changed. ` +
      `Set spec.adoptExisting to true to take it over, or choose another spec.providerName.`;
    refusePass(pass, C.Synced.reasons.AlreadyExists, message);
    return false;
  }
  if (existing.type !== desired.type) {
    const message =
      `The provider "${desired.name}" in Coder has type ${existing.type}, spec.type is ${desired.type}, and Coder cannot change a type. ` +
      `Delete one of them.`;
    refusePass(pass, C.Synced.reasons.ImmutableFieldConflict, message);
    return false;
  }
  const heldSettings = settingsConflict(existing, desired);
  if (heldSettings) {
    const message =
      `The provider "${desired.name}" in Coder has settings of type ${heldSettings} that spec no longer sets, and Coder ` +
      `cannot remove a provider's settings through its API (it takes settings null as not sent); nothing was changed. ` +
      `Set ${heldSettings === 'upstream-headers' ? 'spec.upstreamHeaders' : 'spec.bedrock'} again, or delete this object ` +
      `(which deletes the provider in Coder) and create it again.`;
    refusePass(pass, C.Synced.reasons.ImmutableFieldConflict, message);
    return false;
  }

  // Nothing awaited since the check: the claim is this object's.
  ctx.claims.claim(p, existing.id, nameKey, ownID);

  // Created a moment ago by this operator, on a cache that has not seen the status yet: it matches spec.
  if (!p.status?.coderID && ours) {
    pass.status.coderID = existing.id;
    return true;
  }
  // An adopted provider's keys and credentials are unknown: every one is sent.
  const update = updateRequest(existing, desired, keys, secrets, ours ? p.status : undefined);
  pass.status.coderID = existing.id;
  if (!update) return true;
  let updated;
  try {
    updated = await client.request('PATCH', '/api/v2/ai/providers/{aiProvider}', {
      params: { aiProvider: existing.id },
      body: update,
      signal,
    });
  } catch (err) {
    signal.throwIfAborted();
    failPass(pass, `update the provider "${desired.name}"`, err);
    return false;
  }
  Object.assign(pass.status, {
    apiKeys: update.api_keys ? appliedKeys(updated, keys, update.api_keys) : p.status?.apiKeys,
    appliedSecretHashes: update.settings !== undefined ? hashesAfterWrite : p.status?.appliedSecretHashes,
    lastSyncedTime: nowTime(ctx.now()),
  });
  const fields = Object.keys(update).join(', ');
  await ctx.events.record(
    eventTarget(p),
    'Normal',
    'ProviderUpdated',
    'UpdateAIProvider',
    `Updated ${fields} of the provider "${desired.name}" in Coder.`,
  );
  return true;
}
