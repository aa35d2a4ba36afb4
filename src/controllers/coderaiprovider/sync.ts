// One pass of a CoderAIProvider against Coder, after the spec check: credentials, control plane, version
// gate, entitlement, the providers list (which also proves the API is served), then create, adopt or
// update, and the AI Gateway switch. Each step either goes on or stops with the problem Ready reports.
import {
  CoderAIProviderConditions as C,
  type CoderAIProvider,
  type CoderAIProviderStatus,
} from '../../../generated/types/coderaiprovider.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import { nowTime, type ConditionInput } from '../../runtime/conditions.ts';
import { eventTarget } from '../shared/event-target.ts';
import { connectToCoder } from '../shared/coder-connection.ts';
import { syncFailure } from '../shared/coder-sync-failure.ts';
import { coderVersionAtLeast } from '../shared/coder-version.ts';
import { resolveCredentialInputs } from '../shared/credential-inputs.ts';
import { entitledCondition, entitlementsUnavailableCondition } from '../shared/entitled-condition.ts';
import { secretHash } from '../shared/secret-hash.ts';
import type { ProviderContext } from './context.ts';
import {
  aiProvidersSince,
  bedrockSecretFields,
  credentialRefs,
  desiredProvider,
  type BedrockSecretField,
  type DesiredProvider,
} from './desired.ts';
import type { Blocker } from './status.ts';
import { appliedKeys, createRequest, updateRequest, type BedrockSecretInputs, type KeyInput } from './update-request.ts';

/** How soon entitlements that could not be read are asked for again. */
const entitlementsRetryMs = 30_000;

export interface SyncPass {
  conditions: Record<string, ConditionInput | undefined>;
  status: Partial<CoderAIProviderStatus>;
  blocker?: Blocker;
  requeueAfterMs?: number;
  /** A failure that may pass on its own: thrown after the status is written, so the queue backs off. */
  error?: Error;
}

export async function syncProvider(ctx: ProviderContext, p: CoderAIProvider, signal: AbortSignal): Promise<SyncPass> {
  const pass: SyncPass = { conditions: {}, status: {}, requeueAfterMs: ctx.resyncMs };
  const stop = (reason: Blocker['reason'], message: string, extra: Partial<SyncPass> = {}): SyncPass =>
    Object.assign(pass, { blocker: { reason, message } }, extra);
  const R = C.Ready.reasons;

  const namespace = p.metadata.namespace ?? '';
  const credentials = resolveCredentialInputs(p, credentialRefs(p), (name) => ctx.caches.secrets.get(namespace, name));
  pass.conditions[C.CredentialSecretReady.type] = credentials.condition;
  // A Secret change reconciles at once (watched), so nothing to look again for.
  if (!credentials.ready) return stop(R.CredentialSecretNotReady, credentials.condition.message, { requeueAfterMs: undefined });

  const connection = await connectToCoder(ctx, ctx.caches, ctx.facts, p, signal);
  pass.conditions[C.ControlPlaneReady.type] = connection.condition;
  if (!connection.connected) {
    return stop(R.ControlPlaneNotReady, connection.condition.message, {
      requeueAfterMs: connection.requeueAfterMs,
      ...(connection.error ? { error: connection.error } : {}),
    });
  }
  const { client, controlPlane, buildInfo } = connection;
  pass.status.coderVersion = buildInfo.version;

  if (coderVersionAtLeast(buildInfo.version, aiProvidersSince) === false) {
    const message = `Coder ${buildInfo.version} has no AI providers API; it needs ${aiProvidersSince} or newer. Upgrade Coder.`;
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

  let providers: Schemas['AIProvider'][];
  try {
    providers = await client.request('GET', '/api/v2/ai/providers', { signal });
  } catch (err) {
    signal.throwIfAborted();
    if (isCoderNotFound(err)) {
      const message = `Coder ${buildInfo.version} answered 404 for GET /api/v2/ai/providers although that version should serve it.`;
      pass.conditions[C.Supported.type] = {
        type: C.Supported.type,
        status: 'False',
        reason: C.Supported.reasons.EndpointNotFound,
        message,
      };
      return stop(R.Unsupported, message);
    }
    return failed(pass, 'list the AI providers', err);
  }
  pass.conditions[C.Supported.type] = {
    type: C.Supported.type,
    status: 'True',
    reason: C.Supported.reasons.Supported,
    message: `Coder ${buildInfo.version} serves /api/v2/ai/providers.`,
  };

  const desired = desiredProvider(p, buildInfo.version);
  const applied = await applyProvider(ctx, client, p, desired, providers, credentials.values, signal, pass);
  if (!applied) return pass;

  const base = (buildInfo.dashboard_url || controlPlane.status?.url || '').replace(/\/+$/, '');
  pass.status.providerName = desired.name;
  pass.status.routes = { embedded: `${base}/api/v2/ai-gateway/${desired.name}/`, legacy: `${base}/api/v2/aibridge/${desired.name}/` };

  if (desired.unsupported.length) {
    const message = `Applied every field except ${desired.unsupported.join('; ')}: Coder ${buildInfo.version} does not accept it.`;
    pass.conditions[C.Synced.type] = { type: C.Synced.type, status: 'False', reason: C.Synced.reasons.FieldUnsupported, message };
    return stop(R.SyncFailed, message);
  }
  pass.conditions[C.Synced.type] = {
    type: C.Synced.type,
    status: 'True',
    reason: C.Synced.reasons.Applied,
    message: `Coder holds the provider "${desired.name}" as spec describes.`,
  };

  if (!(await gatewayEnabled(ctx, p, connection, signal))) {
    return stop(
      R.GatewayDisabledOnControlPlane,
      `The provider is stored in Coder, but AI Gateway is off there (config.ai.bridge.enabled is false), so no client can use it. ` +
        `Set CODER_AI_GATEWAY_ENABLED=true on CoderControlPlane "${namespace}/${p.spec.controlPlaneRef.name}".`,
    );
  }
  return pass;
}

/** Creates, adopts or updates the provider; false (with Synced and the blocker set) when it could not. */
async function applyProvider(
  ctx: ProviderContext,
  client: CoderClient,
  p: CoderAIProvider,
  desired: DesiredProvider,
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
  const R = C.Ready.reasons;

  if (!existing) {
    let created;
    try {
      created = await client.request('POST', '/api/v2/ai/providers', { body: createRequest(desired, keys, secrets), signal });
    } catch (err) {
      signal.throwIfAborted();
      failed(pass, `create the provider "${desired.name}"`, err);
      return false;
    }
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
  if (!ours && !p.spec.adoptExisting) {
    const message =
      `Coder already has a provider named "${desired.name}" that this object did not create; nothing was changed. ` +
      `Set spec.adoptExisting to true to take it over, or choose another spec.providerName.`;
    pass.conditions[C.Synced.type] = { type: C.Synced.type, status: 'False', reason: C.Synced.reasons.AlreadyExists, message };
    Object.assign(pass, { blocker: { reason: R.SyncFailed, message } });
    return false;
  }
  if (existing.type !== desired.type) {
    const message =
      `The provider "${desired.name}" in Coder has type ${existing.type}, spec.type is ${desired.type}, and Coder cannot change a type. ` +
      `Delete one of them.`;
    pass.conditions[C.Synced.type] = { type: C.Synced.type, status: 'False', reason: C.Synced.reasons.ImmutableFieldConflict, message };
    Object.assign(pass, { blocker: { reason: R.SyncFailed, message } });
    return false;
  }

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
    failed(pass, `update the provider "${desired.name}"`, err);
    return false;
  }
  Object.assign(pass.status, {
    apiKeys: update.api_keys ? appliedKeys(updated, keys) : p.status?.apiKeys,
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

/** Synced False from a failed call; one that may pass on its own is also thrown (after the status write). */
function failed(pass: SyncPass, action: string, err: unknown): SyncPass {
  const failure = syncFailure(action, err);
  pass.conditions[C.Synced.type] = failure.condition;
  pass.blocker = { reason: C.Ready.reasons.SyncFailed, message: failure.condition.message };
  if (failure.retry) pass.error = err instanceof Error ? err : new Error(String(err));
  return pass;
}

/** Whether AI Gateway is on in that Coder; a deployment config that cannot be read is no reason to block. */
async function gatewayEnabled(
  ctx: ProviderContext,
  p: CoderAIProvider,
  connection: Extract<Awaited<ReturnType<typeof connectToCoder>>, { connected: true }>,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    const config = await ctx.facts.deploymentConfig(connection.controlPlane, connection.client, { signal });
    const ai = config.config.ai as { bridge?: { enabled?: boolean } } | undefined;
    return ai?.bridge?.enabled !== false;
  } catch (err) {
    signal.throwIfAborted();
    ctx.logger.debug(
      { err: (err as Error).message, provider: p.metadata.name },
      'could not read the deployment config; AI Gateway taken as on',
    );
    return true;
  }
}
