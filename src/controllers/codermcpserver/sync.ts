// Making Coder hold a CoderMCPServer: the list of configs (which proves the experimental API is served, and
// finds the config), then create, adopt or update (never one that another CoderMCPServer manages:
// coder-id-claims.ts). Each gives the outcome of its step: the status fields it learned, or the problem it
// stopped on.
import {
  CoderMCPServerConditions as C,
  type CoderMCPServer,
  type CoderMCPServerConditionChanges,
  type CoderMCPServerStatus,
} from '../../../generated/types/codermcpserver.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderApiError } from '../../coder/errors.ts';
import { isCoderNotFound, isExperimentRequired } from '../../coder/error-predicates.ts';
import { nowTime } from '../../runtime/conditions.ts';
import { coderNameKey } from '../shared/coder-object/coder-id-claims.ts';
import type { Connected } from '../shared/coder-object/opening-steps.ts';
import {
  managedByAnother,
  stopWith,
  supportedCondition,
  syncFailed,
  syncRefused,
  type Found,
} from '../shared/coder-object/step-outcomes.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { StepOutcome } from '../shared/reconcile/outcome.ts';
import { secretHash } from '../shared/coder-object/secret-hash.ts';
import type { MCPServerContext } from './context.ts';
import { mcpServersPath, secretFields, type DesiredMCPServer } from './desired.ts';
import { updateRequest } from './update-request.ts';

type Outcome = StepOutcome<CoderMCPServerStatus, CoderMCPServerConditionChanges>;

/**
 * Coder's MCP server configs, with Supported: an experimental API. A 404, or a 403 naming experiments that
 * are off, does not change until Coder is upgraded or reconfigured: asked again at the resync, not retried.
 */
export async function listConfigs(
  { client, buildInfo }: Connected,
  signal: AbortSignal,
): Promise<Found<{ configs: Schemas['MCPServerConfig'][] }, Outcome>> {
  let configs: Schemas['MCPServerConfig'][];
  try {
    configs = await client.request('GET', mcpServersPath, { signal });
  } catch (err) {
    signal.throwIfAborted();
    if (!isCoderNotFound(err) && !isExperimentRequired(err)) return syncFailed('list the MCP server configs', err);
    const { status, coderMessage } = err as CoderApiError;
    const experiment = status === 403;
    const message =
      `Coder ${buildInfo.version} serves no MCP server configs API: GET ${mcpServersPath} answered ${status}` +
      `${coderMessage ? ` "${coderMessage}"` : ''}. ` +
      (experiment ? 'Enable the experiments Coder names (CODER_EXPERIMENTS), or upgrade Coder.' : 'Upgrade Coder.');
    const reason = experiment ? C.Supported.reasons.ExperimentRequired : C.Supported.reasons.EndpointNotFound;
    return {
      conditions: { [C.Supported.type]: supportedCondition(reason, message, 'False') },
      stop: stopWith(C.Ready.reasons.Unsupported, message),
    };
  }
  const supported = supportedCondition(
    C.Supported.reasons.ExperimentalAPI,
    `Coder ${buildInfo.version} serves ${mcpServersPath}; Coder may change or remove this experimental API without notice.`,
  );
  return { conditions: { [C.Supported.type]: supported }, status: { apiPath: mcpServersPath }, configs };
}

const hasSecrets = (c: Schemas['MCPServerConfig']) => ({
  oauth2Secret: c.has_oauth2_secret ?? false,
  apiKey: c.has_api_key ?? false,
  customHeaders: c.has_custom_headers ?? false,
});

/** Creates, adopts or updates the config this object records, or the one with the desired slug among `configs` (Coder's list). */
export async function applyConfig(
  ctx: MCPServerContext,
  { client, controlPlane, buildInfo }: Connected,
  s: CoderMCPServer,
  desired: DesiredMCPServer,
  configs: Schemas['MCPServerConfig'][],
  signal: AbortSignal,
): Promise<Outcome> {
  const slug = desired.fields.slug;
  const nameKey = coderNameKey(buildInfo.deployment_id, controlPlane, slug);
  const hashes = new Map([...desired.secrets].map(([field, value]) => [field, secretHash(s.metadata.uid, value)]));
  const previous = (s.status?.appliedSecretHashes ?? {}) as Record<string, string | undefined>;
  const hashesAfterWrite = { ...Object.fromEntries(Object.keys(previous).map((f) => [f, null])), ...Object.fromEntries(hashes) } as Record<
    string,
    string
  >;
  const ownID = s.status?.coderID ?? ctx.claims.createdBy(s);
  const existing = (ownID && configs.find((c) => c.id === ownID)) || configs.find((c) => c.slug === slug);

  const what = `The MCP server "${slug}"`;
  if (!existing) {
    const creator = ctx.claims.startCreate(s, nameKey);
    if (creator) return managedByAnother(creator, what, 'spec.slug');
    let created;
    try {
      const body = { ...desired.fields, ...secretFields(desired.secrets) } as Schemas['CreateMCPServerConfigRequest'];
      created = await client.request('POST', mcpServersPath, { body, signal });
    } catch (err) {
      ctx.claims.endCreate(s, nameKey);
      signal.throwIfAborted();
      return syncFailed(`create the MCP server "${slug}"`, err);
    }
    ctx.claims.endCreate(s, nameKey, created.id);
    await ctx.events.record(
      eventTarget(s),
      'Normal',
      'MCPServerCreated',
      'CreateMCPServer',
      `Registered the MCP server "${slug}" in Coder.`,
    );
    return {
      status: {
        coderID: created.id,
        hasSecrets: hasSecrets(created),
        appliedSecretHashes: hashesAfterWrite,
        lastSyncedTime: nowTime(ctx.now()),
      },
    };
  }

  const holder = ctx.claims.holderOf(s, existing.id, nameKey, ownID);
  if (holder) {
    // Status forgets the config: kept there, deleting this object would delete the holder's config in Coder.
    ctx.claims.release(s);
    return {
      status: { coderID: undefined, hasSecrets: undefined, appliedSecretHashes: undefined },
      ...managedByAnother(holder, what, 'spec.slug'),
    };
  }
  const ours = ownID === existing.id;
  if (!ours && !s.spec.adoptExisting) {
    const message =
      `Coder already has an MCP server config with slug "${slug}" that this object did not create; nothing was changed. ` +
      `Set spec.adoptExisting to true to take it over, or choose another spec.slug.`;
    return syncRefused(C.Synced.reasons.AlreadyExists, message);
  }
  // Nothing awaited since the check: the claim is this object's.
  ctx.claims.claim(s, existing.id, nameKey, ownID);
  const held = { coderID: existing.id, hasSecrets: hasSecrets(existing) };
  // Created by this operator, whose status write failed: it matches spec.
  if (!s.status?.coderID && ours) return { status: held };
  // An adopted config's secrets are unknown: every one is sent.
  const update = updateRequest(existing, desired, hashes, ours ? previous : undefined);
  if (!update) return { status: held };
  let updated;
  try {
    updated = await client.request('PATCH', `${mcpServersPath}/{mcpServer}`, {
      params: { mcpServer: existing.id },
      body: update,
      signal,
    });
  } catch (err) {
    signal.throwIfAborted();
    return { status: held, ...syncFailed(`update the MCP server "${slug}"`, err) };
  }
  const secretsSent =
    update.oauth2_client_secret !== undefined || update.api_key_value !== undefined || update.custom_headers !== undefined;
  // Field names only: values may be secrets.
  await ctx.events.record(
    eventTarget(s),
    'Normal',
    'MCPServerUpdated',
    'UpdateMCPServer',
    `Updated ${Object.keys(update).join(', ')} of the MCP server "${slug}" in Coder.`,
  );
  return {
    status: {
      coderID: existing.id,
      hasSecrets: hasSecrets(updated),
      appliedSecretHashes: secretsSent || !ours ? hashesAfterWrite : s.status?.appliedSecretHashes,
      lastSyncedTime: nowTime(ctx.now()),
    },
  };
}
