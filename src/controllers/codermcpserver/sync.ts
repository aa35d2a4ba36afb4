// One pass of a CoderMCPServer against Coder, after the spec check: credentials, control plane, the version
// gate, the list of configs (which proves the API is served, and finds the config), then create, adopt or
// update (never one that another CoderMCPServer manages: coder-id-claims.ts). Each step either goes on or
// stops with the problem Ready reports.
import { CoderMCPServerConditions as C, type CoderMCPServer, type CoderMCPServerStatus } from '../../../generated/types/codermcpserver.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderClient } from '../../coder/client.ts';
import type { CoderApiError } from '../../coder/errors.ts';
import { isCoderNotFound, isExperimentRequired } from '../../coder/error-predicates.ts';
import { nowTime } from '../../runtime/conditions.ts';
import {
  appliedCondition,
  failPass,
  newPass,
  openPass,
  refusePass,
  stopPass,
  supportedCondition,
  type CoderObjectPass,
} from '../shared/coder-object-pass.ts';
import { coderNameKey, refuseManagedByAnother } from '../shared/coder-id-claims.ts';
import { resolveCredentialInputs } from '../shared/credential-inputs.ts';
import { eventTarget } from '../shared/event-target.ts';
import { secretHash } from '../shared/secret-hash.ts';
import type { MCPServerContext } from './context.ts';
import { credentialRefs, desiredMCPServer, mcpServersPath, secretFields, type DesiredMCPServer } from './desired.ts';
import { updateRequest } from './update-request.ts';

export type SyncPass = CoderObjectPass<CoderMCPServerStatus, Exclude<(typeof C.Ready.reasons)[keyof typeof C.Ready.reasons], 'Available'>>;

export async function syncMCPServer(ctx: MCPServerContext, s: CoderMCPServer, signal: AbortSignal): Promise<SyncPass> {
  const pass: SyncPass = newPass(ctx.resyncMs);
  const namespace = s.metadata.namespace ?? '';
  const credentials = resolveCredentialInputs(s, credentialRefs(s), (name) => ctx.caches.secrets.get(namespace, name));
  const connection = await openPass(ctx, s, pass, { credentials: credentials.condition, feature: 'mcpServerConfigs' }, signal);
  if (!connection || !credentials.ready) return pass;
  const { client, buildInfo } = connection;

  let configs: Schemas['MCPServerConfig'][];
  try {
    configs = await client.request('GET', mcpServersPath, { signal });
  } catch (err) {
    signal.throwIfAborted();
    if (!isCoderNotFound(err) && !isExperimentRequired(err)) return failPass(pass, 'list the MCP server configs', err);
    // Neither answer changes until Coder is upgraded or reconfigured: asked again at the resync, not retried.
    const { status, coderMessage } = err as CoderApiError;
    const experiment = status === 403;
    const message =
      `Coder ${buildInfo.version} serves no MCP server configs API: GET ${mcpServersPath} answered ${status}` +
      `${coderMessage ? ` "${coderMessage}"` : ''}. ` +
      (experiment ? 'Enable the experiments Coder names (CODER_EXPERIMENTS), or upgrade Coder.' : 'Upgrade Coder.');
    const reason = experiment ? C.Supported.reasons.ExperimentRequired : C.Supported.reasons.EndpointNotFound;
    pass.conditions[C.Supported.type] = supportedCondition(reason, message, 'False');
    return stopPass(pass, C.Ready.reasons.Unsupported, message);
  }
  pass.status.apiPath = mcpServersPath;
  pass.conditions[C.Supported.type] = supportedCondition(
    C.Supported.reasons.ExperimentalAPI,
    `Coder ${buildInfo.version} serves ${mcpServersPath}; Coder may change or remove this experimental API without notice.`,
  );

  const desired = desiredMCPServer(s, credentials.values, buildInfo.version);
  const nameKey = coderNameKey(buildInfo.deployment_id, connection.controlPlane, desired.fields.slug);
  if (!(await applyConfig(ctx, client, s, desired, nameKey, configs, signal, pass))) return pass;
  pass.status.slug = desired.fields.slug;
  if (desired.unsupported.length) {
    return refusePass(pass, C.Synced.reasons.FieldUnsupported, `Applied every field except ${desired.unsupported.join('; ')}.`);
  }
  pass.conditions[C.Synced.type] = appliedCondition(`Coder holds the MCP server "${desired.fields.slug}" as spec describes.`);
  return pass;
}

async function applyConfig(
  ctx: MCPServerContext,
  client: CoderClient,
  s: CoderMCPServer,
  desired: DesiredMCPServer,
  nameKey: string,
  configs: Schemas['MCPServerConfig'][],
  signal: AbortSignal,
  pass: SyncPass,
): Promise<boolean> {
  const hashes = new Map([...desired.secrets].map(([field, value]) => [field, secretHash(s.metadata.uid, value)]));
  const previous = (s.status?.appliedSecretHashes ?? {}) as Record<string, string | undefined>;
  const hashesAfterWrite = { ...Object.fromEntries(Object.keys(previous).map((f) => [f, null])), ...Object.fromEntries(hashes) } as Record<
    string,
    string
  >;
  const slug = desired.fields.slug;
  const ownID = s.status?.coderID ?? ctx.createdIDs.get(s.metadata.uid ?? '');
  const existing = (ownID && configs.find((c) => c.id === ownID)) || configs.find((c) => c.slug === slug);
  const hasSecrets = (c: Schemas['MCPServerConfig']) => ({
    oauth2Secret: c.has_oauth2_secret ?? false,
    apiKey: c.has_api_key ?? false,
    customHeaders: c.has_custom_headers ?? false,
  });

  const what = `The MCP server "${slug}"`;
  if (!existing) {
    const creator = ctx.claims.startCreate(s, nameKey);
    if (creator) {
      refuseManagedByAnother(pass, creator, what, 'spec.slug');
      return false;
    }
    let created;
    try {
      const body = { ...desired.fields, ...secretFields(desired.secrets) } as Schemas['CreateMCPServerConfigRequest'];
      created = await client.request('POST', mcpServersPath, { body, signal });
    } catch (err) {
      ctx.claims.endCreate(s, nameKey);
      signal.throwIfAborted();
      failPass(pass, `create the MCP server "${slug}"`, err);
      return false;
    }
    ctx.claims.endCreate(s, nameKey, created.id);
    ctx.createdIDs.set(s.metadata.uid ?? '', created.id);
    Object.assign(pass.status, {
      coderID: created.id,
      hasSecrets: hasSecrets(created),
      appliedSecretHashes: hashesAfterWrite,
      lastSyncedTime: nowTime(ctx.now()),
    });
    await ctx.events.record(
      eventTarget(s),
      'Normal',
      'MCPServerCreated',
      'CreateMCPServer',
      `Registered the MCP server "${slug}" in Coder.`,
    );
    return true;
  }

  const holder = ctx.claims.holderOf(s, existing.id, nameKey, ownID);
  if (holder) {
    // Status forgets the config: kept there, deleting this object would delete the holder's config in Coder.
    ctx.createdIDs.delete(s.metadata.uid ?? '');
    Object.assign(pass.status, { coderID: undefined, hasSecrets: undefined, appliedSecretHashes: undefined });
    refuseManagedByAnother(pass, holder, what, 'spec.slug');
    return false;
  }
  const ours = ownID === existing.id;
  if (!ours && !s.spec.adoptExisting) {
    const message =
      `Coder already has an MCP server config with slug "${slug}" that this object did not create; nothing was changed. ` +
      `Set spec.adoptExisting to true to take it over, or choose another spec.slug.`;
    refusePass(pass, C.Synced.reasons.AlreadyExists, message);
    return false;
  }
  // Nothing awaited since the check: the claim is this object's.
  ctx.claims.claim(s, existing.id, nameKey, ownID);
  // Created a moment ago by this operator, on a cache that has not seen the status yet: it matches spec.
  if (!s.status?.coderID && ours) {
    pass.status.coderID = existing.id;
    pass.status.hasSecrets = hasSecrets(existing);
    return true;
  }
  // An adopted config's secrets are unknown: every one is sent.
  const update = updateRequest(existing, desired, hashes, ours ? previous : undefined);
  pass.status.coderID = existing.id;
  pass.status.hasSecrets = hasSecrets(existing);
  if (!update) return true;
  let updated;
  try {
    updated = await client.request('PATCH', `${mcpServersPath}/{mcpServer}`, {
      params: { mcpServer: existing.id },
      body: update,
      signal,
    });
  } catch (err) {
    signal.throwIfAborted();
    failPass(pass, `update the MCP server "${slug}"`, err);
    return false;
  }
  const secretsSent =
    update.oauth2_client_secret !== undefined || update.api_key_value !== undefined || update.custom_headers !== undefined;
  Object.assign(pass.status, {
    hasSecrets: hasSecrets(updated),
    appliedSecretHashes: secretsSent || !ours ? hashesAfterWrite : s.status?.appliedSecretHashes,
    lastSyncedTime: nowTime(ctx.now()),
  });
  // Field names only: values may be secrets.
  await ctx.events.record(
    eventTarget(s),
    'Normal',
    'MCPServerUpdated',
    'UpdateMCPServer',
    `Updated ${Object.keys(update).join(', ')} of the MCP server "${slug}" in Coder.`,
  );
  return true;
}
