// One pass of a CoderMCPServer against Coder, after the spec check: credentials, control plane, the version
// gate, the API path (the /api/v2 one, else the experimental one; the list also finds the config), then
// create, adopt or update. Each step either goes on or stops with the problem Ready reports.
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
import { resolveCredentialInputs } from '../shared/credential-inputs.ts';
import { eventTarget } from '../shared/event-target.ts';
import { secretHash } from '../shared/secret-hash.ts';
import type { MCPServerContext } from './context.ts';
import {
  credentialRefs,
  desiredMCPServer,
  experimentalMCPServersPath,
  mcpServersPath,
  secretFields,
  type DesiredMCPServer,
  type MCPApiPath,
} from './desired.ts';
import { actionsUnknown } from './tool-rules.ts';
import { updateRequest } from './update-request.ts';

export type SyncPass = CoderObjectPass<CoderMCPServerStatus, Exclude<(typeof C.Ready.reasons)[keyof typeof C.Ready.reasons], 'Available'>>;

export async function syncMCPServer(ctx: MCPServerContext, s: CoderMCPServer, signal: AbortSignal): Promise<SyncPass> {
  const pass: SyncPass = newPass(ctx.resyncMs);
  const namespace = s.metadata.namespace ?? '';
  const credentials = resolveCredentialInputs(s, credentialRefs(s), (name) => ctx.caches.secrets.get(namespace, name));
  const connection = await openPass(ctx, s, pass, { credentials: credentials.condition, feature: 'mcpServerConfigs' }, signal);
  if (!connection || !credentials.ready) return pass;
  const { client, buildInfo } = connection;

  let found: Listing;
  try {
    found = await listConfigs(client, signal);
  } catch (err) {
    signal.throwIfAborted();
    return failPass(pass, 'list the MCP server configs', err);
  }
  if ('refusals' in found) {
    // Neither answer changes until Coder is upgraded or reconfigured: asked again at the resync, not retried.
    const experiment = found.refusals.some((r) => r.status === 403);
    const message =
      `Coder ${buildInfo.version} serves no MCP server configs API: ${found.refusals.map((r) => r.text).join('; ')}. ` +
      (experiment ? 'Enable the experiments Coder names (CODER_EXPERIMENTS), or upgrade Coder.' : 'Upgrade Coder.');
    const reason = experiment ? C.Supported.reasons.ExperimentRequired : C.Supported.reasons.EndpointNotFound;
    pass.conditions[C.Supported.type] = supportedCondition(reason, message, 'False');
    return stopPass(pass, C.Ready.reasons.Unsupported, message);
  }
  pass.status.apiPath = found.path;
  pass.conditions[C.Supported.type] =
    found.path === mcpServersPath
      ? supportedCondition(C.Supported.reasons.Supported, `Coder ${buildInfo.version} serves ${mcpServersPath}.`)
      : supportedCondition(
          C.Supported.reasons.ExperimentalAPI,
          `Coder ${buildInfo.version} serves only ${experimentalMCPServersPath}; Coder may change or remove it without notice.`,
        );

  const desired = desiredMCPServer(s, credentials.values, found.path);
  const held = await applyConfig(ctx, client, s, desired, found, signal, pass);
  if (!held) return pass;
  pass.status.slug = desired.fields.slug;
  if (desired.fields.tool_rules?.some((r) => r.action === 'escalate') && actionsUnknown(held.tool_rules)) {
    desired.unsupported.push(
      'spec.tools.rules action escalate (this Coder stores a rule as enabled or disabled only; it holds escalate as disabled)',
    );
  }
  if (desired.unsupported.length) {
    return refusePass(pass, C.Synced.reasons.FieldUnsupported, `Applied every field except ${desired.unsupported.join('; ')}.`);
  }
  pass.conditions[C.Synced.type] = appliedCondition(`Coder holds the MCP server "${desired.fields.slug}" as spec describes.`);
  return pass;
}

/** The configs and the path that served them, or how each path refused (404, or 403 for an experiment that is off). */
type Listing =
  { path: MCPApiPath; configs: Schemas['MCPServerConfig'][] } | { refusals: { path: MCPApiPath; status: number; text: string }[] };

/** The configs from the newer path, else the experimental one; any other failure is thrown. */
async function listConfigs(client: CoderClient, signal: AbortSignal): Promise<Listing> {
  const refusals: { path: MCPApiPath; status: number; text: string }[] = [];
  const list: Record<MCPApiPath, () => Promise<Schemas['MCPServerConfig'][]>> = {
    [mcpServersPath]: () => client.request('GET', mcpServersPath, { signal }),
    [experimentalMCPServersPath]: () => client.request('GET', experimentalMCPServersPath, { signal }),
  };
  for (const path of [mcpServersPath, experimentalMCPServersPath] as const) {
    try {
      return { path, configs: await list[path]() };
    } catch (err) {
      if (!isCoderNotFound(err) && !isExperimentRequired(err)) throw err;
      const { status, coderMessage } = err as CoderApiError;
      refusals.push({ path, status, text: `GET ${path} answered ${status}${coderMessage ? ` "${coderMessage}"` : ''}` });
    }
  }
  return { refusals };
}

async function applyConfig(
  ctx: MCPServerContext,
  client: CoderClient,
  s: CoderMCPServer,
  desired: DesiredMCPServer,
  found: { path: MCPApiPath; configs: Schemas['MCPServerConfig'][] },
  signal: AbortSignal,
  pass: SyncPass,
): Promise<Schemas['MCPServerConfig'] | undefined> {
  const hashes = new Map([...desired.secrets].map(([field, value]) => [field, secretHash(s.metadata.uid, value)]));
  const previous = (s.status?.appliedSecretHashes ?? {}) as Record<string, string | undefined>;
  const hashesAfterWrite = { ...Object.fromEntries(Object.keys(previous).map((f) => [f, null])), ...Object.fromEntries(hashes) } as Record<
    string,
    string
  >;
  const slug = desired.fields.slug;
  const ownID = s.status?.coderID ?? ctx.createdIDs.get(s.metadata.uid ?? '');
  const existing = (ownID && found.configs.find((c) => c.id === ownID)) || found.configs.find((c) => c.slug === slug);
  const hasSecrets = (c: Schemas['MCPServerConfig']) => ({
    oauth2Secret: c.has_oauth2_secret ?? false,
    apiKey: c.has_api_key ?? false,
    customHeaders: c.has_custom_headers ?? false,
  });

  if (!existing) {
    let created;
    try {
      const body = { ...desired.fields, ...secretFields(desired.secrets) } as Schemas['CreateMCPServerConfigRequest'];
      created = await client.request('POST', found.path, { body, signal });
    } catch (err) {
      signal.throwIfAborted();
      failPass(pass, `create the MCP server "${slug}"`, err);
      return undefined;
    }
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
    return created;
  }

  const ours = ownID === existing.id;
  if (!ours && !s.spec.adoptExisting) {
    const message =
      `Coder already has an MCP server config with slug "${slug}" that this object did not create; nothing was changed. ` +
      `Set spec.adoptExisting to true to take it over, or choose another spec.slug.`;
    refusePass(pass, C.Synced.reasons.AlreadyExists, message);
    return undefined;
  }
  // Created a moment ago by this operator, on a cache that has not seen the status yet: it matches spec.
  if (!s.status?.coderID && ours) {
    pass.status.coderID = existing.id;
    pass.status.hasSecrets = hasSecrets(existing);
    return existing;
  }
  // An adopted config's secrets are unknown: every one is sent.
  const update = updateRequest(existing, desired, hashes, ours ? previous : undefined);
  pass.status.coderID = existing.id;
  pass.status.hasSecrets = hasSecrets(existing);
  if (!update) return existing;
  let updated;
  try {
    updated = await client.request('PATCH', `${found.path}/{mcpServer}` as `${typeof mcpServersPath}/{mcpServer}`, {
      params: { mcpServer: existing.id },
      body: update,
      signal,
    });
  } catch (err) {
    signal.throwIfAborted();
    failPass(pass, `update the MCP server "${slug}"`, err);
    return undefined;
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
  return updated;
}
