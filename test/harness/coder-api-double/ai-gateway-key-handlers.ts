// AI Gateway keys (/api/v2/ai-gateway/keys) as Coder serves them from the release coder-releases.ts names:
// the key is returned only by the create, names are unique, a delete of an unknown id answers 404. Older
// versions and AGPL builds answer 404 on every route; v2.36.0 enterprise/coderd/coderd.go mounts them behind
// RequireFeatureMW(aibridge), so without AI Gateway in the license every call is 403, as the real
// unlicensed v2.36.0 server answers.
import { randomBytes, randomUUID } from 'node:crypto';
import { coderHasFeature } from '../../../src/controllers/shared/coder-object/coder-releases.ts';
import { gatedBeforeApiKey, routeNotFound, type Answer, type Handler } from './handlers.ts';
import { requireFeature } from './premium-feature.ts';
import type { CoderApiDoubleState } from './state.ts';

/** No /ai-gateway/keys route at all: the /api/v2 router's 404, before any authentication. */
const unserved = (state: CoderApiDoubleState) =>
  !state.enterprise || coderHasFeature(state.buildInfo.version, 'aiGatewayKeys') === false ? routeNotFound : undefined;

const gated = (handler: Handler): Handler => gatedBeforeApiKey(unserved, requireFeature('aibridge', handler));

// coder/coder v2.36.0 coderd/database/migrations/000514_ai_gateway_keys.up.sql ai_gateway_keys_name_check
const nameRegex = /^[a-z0-9]+(-[a-z0-9]+)*$/;
// coder/coder v2.36.0 enterprise/coderd/aigatewaykeys.go nameFormatDetail
const nameFormatDetail =
  'Must be 64 characters or fewer, lowercase letters, numbers, and non-consecutive hyphens, cannot start or end with a hyphen.';

/**
 * The key id as github.com/google/uuid v1.6.0 Parse reads it (with or without hyphens, braced, or urn:uuid:),
 * in canonical form, or Parse's error.
 */
function parseUuid(raw: string): { id: string } | { error: string } {
  const bytes = Buffer.byteLength(raw, 'utf8');
  let s = raw;
  if (bytes === 32) {
    return /^[0-9a-f]{32}$/i.test(s)
      ? { id: s.toLowerCase().replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5') }
      : { error: 'invalid UUID format' };
  }
  if (bytes === 45) {
    if (s.slice(0, 9).toLowerCase() !== 'urn:uuid:') return { error: `invalid urn prefix: ${JSON.stringify(s.slice(0, 9))}` };
    s = s.slice(9);
  } else if (bytes === 38) {
    s = s.slice(1, 37);
  } else if (bytes !== 36) {
    return { error: `invalid UUID length: ${bytes}` };
  }
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s.slice(0, 36))
    ? { id: s.slice(0, 36).toLowerCase() }
    : { error: 'invalid UUID format' };
}

export const aiGatewayKeyHandlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.36.0 enterprise/coderd/aigatewaykeys.go aiGatewayKeys
  listAIGatewayKeys: gated(({ state }) => ({ status: 200, body: state.aiGatewayKeys.map((k) => structuredClone(k.key)) })),

  // coder/coder v2.36.0 enterprise/coderd/aigatewaykeys.go postAIGatewayKey: validate:"required" on the name
  // (coderd/httpapi/httpapi.go Read), then the table's CHECK and unique index (writeKeyInsertError).
  createAIGatewayKey: gated(({ state, body }): Answer => {
    const { name } = body as { name: string };
    if (name === '') {
      return {
        status: 400,
        body: {
          message: 'Validation failed.',
          validations: [{ field: 'name', detail: 'Validation failed for tag "required" with value: ""' }],
        },
      };
    }
    if ([...name].length > 64 || !nameRegex.test(name)) {
      return { status: 400, body: { message: 'Invalid key name.', validations: [{ field: 'name', detail: nameFormatDetail }] } };
    }
    if (state.aiGatewayKeys.some((k) => k.key.name === name)) {
      return {
        status: 400,
        body: { message: 'Key name must be unique.', validations: [{ field: 'name', detail: 'A key with this name already exists.' }] },
      };
    }
    const value = randomBytes(32).toString('base64url').slice(0, 43);
    const key = { id: randomUUID(), name, key_prefix: value.slice(0, 11), created_at: new Date().toISOString() };
    state.aiGatewayKeys.push({ key, value });
    return { status: 201, body: { ...key, key: value } };
  }),

  // coder/coder v2.36.0 enterprise/coderd/aigatewaykeys.go deleteAIGatewayKey
  deleteAIGatewayKey: gated(({ state, params }): Answer => {
    const parsed = parseUuid(String(params.aiGatewayKey));
    if ('error' in parsed) return { status: 400, body: { message: 'Invalid key ID.', detail: parsed.error } };
    const index = state.aiGatewayKeys.findIndex((k) => k.key.id === parsed.id);
    // coder/coder v2.36.0 coderd/httpapi/httpapi.go ResourceNotFound
    if (index < 0) return { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };
    state.aiGatewayKeys.splice(index, 1);
    return { status: 204 };
  }),
};
