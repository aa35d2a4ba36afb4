// The AI providers API (/api/v2/ai/providers) as coder/coder v2.36.0 serves it without a license
// (coderd/ai_providers.go, codersdk/aiproviders.go and aiproviders_bedrock.go, coderd/database/db2sdk
// AIProvider), from the release coder-releases.ts names; older versions answer 404 on every route. Answers
// show the provider name for an empty display name, keys masked as aibridge/utils/mask.go does and oldest
// first (keys added in one request in the order of their random ids), Bedrock settings without empty or
// write-only fields; settings null is a field not sent; deletion is soft (404 afterwards, the name free
// again). Icons only where the release has them (Go's decoding drops the field otherwise); settings of type
// upstream-headers are refused as v2.36.0's decoder refuses any type but bedrock, and taken only by a
// development build. The document (schemas/coder-api/openapi.yaml) checks the shapes; the values are
// checked here, with Coder's messages. Also the deployment config, which says from v2.27.0 whether AI Gateway is on.
import { randomBytes, randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import { coderHasFeature, type CoderFeature } from '../../../src/controllers/shared/coder-object/coder-releases.ts';
import { coderVersionAtLeast } from '../../../src/controllers/shared/coder-object/coder-version.ts';
import { routeNotFound, type Answer, type Handler } from './handlers.ts';
import type { CoderApiDoubleState, StoredAIProvider } from './state.ts';

type Schemas = components['schemas'];
type Validation = { field: string; detail: string };
type Bedrock = Schemas['AIProviderBedrockSettings'];
type Settings = Bedrock | Schemas['AIProviderUpstreamHeadersSettings'] | null | undefined;

const served = (state: CoderApiDoubleState, feature: CoderFeature) => coderHasFeature(state.buildInfo.version, feature) !== false;

// coder/coder v2.36.0 codersdk/aiproviders.go AIProviderNameRegex (the CHECK constraint on ai_providers.name)
const nameRegex = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const uuidRegex = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

// coder/coder v2.36.0 coderd/httpapi/httpapi.go ResourceNotFound
const notFound: Answer = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };
const invalidRequest = (validations: Validation[]): Answer => ({
  status: 400,
  body: { message: 'Invalid AI provider request.', validations },
});
const refused = (message: string): Answer => ({ status: 400, body: { message } });
const bedrockRejectsKeys = refused('Bedrock providers do not accept api_keys; configure access credentials via settings.');

// coder/coder v2.36.0 aibridge/utils/mask.go MaskSecret: by length in runes, 4, 2, 1 or no runes at each end.
function maskSecret(value: string): string {
  const runes = [...value];
  if (runes.length === 0) return '';
  const reveal = runes.length >= 20 ? 4 : runes.length >= 10 ? 2 : runes.length >= 5 ? 1 : 0;
  if (runes.length <= reveal * 2) return '...';
  return `${runes.slice(0, reveal).join('')}...${runes.slice(runes.length - reveal).join('')}`;
}

/** coder/coder v2.36.0 coderd/ai_providers.go lookupAIProvider: a UUID, else a valid name; live rows only. */
function lookup(state: CoderApiDoubleState, idOrName: string): StoredAIProvider | Answer {
  const live = state.aiProviders.filter((p) => !p.deleted);
  if (uuidRegex.test(idOrName)) {
    const id = idOrName.replace(/-/g, '').toLowerCase();
    return live.find((p) => p.provider.id.replace(/-/g, '') === id) ?? notFound;
  }
  if (!nameRegex.test(idOrName)) return refused(`Invalid provider id or name: must be a UUID or match ${nameRegex.source}.`);
  return live.find((p) => p.provider.name === idOrName) ?? notFound;
}

const isAnswer = (value: StoredAIProvider | Answer): value is Answer => 'status' in value;

/** Keys as GetAIProviderKeysByProviderID orders them: created_at, then id. */
const byAge = (keys: StoredAIProvider['keys']) =>
  [...keys].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));

/** coder/coder v2.36.0 coderd/database/db2sdk AIProvider: the name for an empty display name, keys masked. */
function view(state: CoderApiDoubleState, stored: StoredAIProvider, keys = byAge(stored.keys)): Schemas['AIProvider'] {
  const { icon, ...provider } = stored.provider;
  return structuredClone({
    ...provider,
    display_name: provider.display_name || provider.name,
    ...(served(state, 'aiProviderIcon') ? { icon: icon ?? '' } : {}),
    api_keys: keys.map((k) => ({ id: k.id, masked: maskSecret(k.value), created_at: k.created_at })),
  });
}

/** Bedrock settings as Go marshals them (omitempty): no empty fields. The write-only ones are kept apart. */
function visibleBedrock(settings: Bedrock): Bedrock {
  const { access_key: _key, access_key_secret: _secret, ...rest } = settings;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== '' && v !== undefined)) as Bedrock;
}

const isBedrock = (s: Settings): s is Bedrock => s?._type === 'bedrock';

/** coder/coder v2.36.0 codersdk/aiproviders.go AIProviderSettings.UnmarshalJSON: a refusal of httpapi.Read, or nothing. */
function decodeSettings(state: CoderApiDoubleState, settings: Settings): Answer | undefined {
  if (settings?._type === 'upstream-headers' && !served(state, 'aiProviderUpstreamHeaders')) {
    return { status: 400, body: { message: 'Request body must be valid JSON.', detail: 'unknown settings type "upstream-headers"' } };
  }
  return undefined;
}

/** coder/coder v2.36.0 codersdk/aiproviders_bedrock.go IsConfigured: region, role or a credential. */
const bedrockConfigured = (b: Bedrock) => !!(b.region || b.role_arn || b.access_key || b.access_key_secret);

// coder/coder v2.36.0 codersdk/aiproviders.go validateAIProviderRoleARN, validateAIProviderBedrockProtocol and
// validateAIProviderBedrockMantleRegion; the ARN split as github.com/aws/aws-sdk-go-v2 aws/arn Parse does.
function bedrockValidations(b: Bedrock, onCreate = false): Validation[] {
  const out: Validation[] = [];
  if (b.role_arn) {
    const example = 'arn:aws:iam::123456789012:role/BedrockRole';
    const sections = b.role_arn.startsWith('arn:') ? splitN(b.role_arn, ':', 6) : [];
    if (sections.length !== 6) {
      out.push({ field: 'settings.role_arn', detail: `role_arn "${b.role_arn}" is not a valid ARN, e.g. ${example}` });
    } else if (sections[2] !== 'iam') {
      out.push({
        field: 'settings.role_arn',
        detail: `role_arn must be an IAM ARN, but resolved to service "${sections[2]}", e.g. ${example}`,
      });
    } else if (!sections[5]!.startsWith('role/')) {
      out.push({
        field: 'settings.role_arn',
        detail: `role_arn must reference an IAM role, but resolved to resource "${sections[5]}", e.g. ${example}`,
      });
    }
  }
  const protocol = b.protocol ?? '';
  if (!['', 'invoke-model', 'mantle'].includes(protocol)) {
    out.push({
      field: 'settings.protocol',
      detail: `unsupported bedrock protocol "${protocol}", must be one of "invoke-model" or "mantle"`,
    });
  }
  // A create may not set the external id (CreateAIProviderRequest.Validate checks it before the region).
  if (onCreate && b.external_id) out.push({ field: 'settings.external_id', detail: 'external_id is server-generated and cannot be set' });
  if (protocol === 'mantle' && !b.region) {
    out.push({ field: 'settings.region', detail: 'region is required for the mantle protocol' });
  }
  return out;
}

function splitN(s: string, sep: string, n: number): string[] {
  const parts = s.split(sep);
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

// coder/coder v2.36.0 codersdk/aiproviders.go validateRequiredAIProviderBaseURL (Go's url.Parse: a scheme and a host)
function baseURLValidations(raw: string): Validation[] {
  if (raw === '') return [{ field: 'base_url', detail: 'base_url is required' }];
  const parsed = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]+)/.exec(raw);
  if (!parsed) return [{ field: 'base_url', detail: 'base_url must be an absolute URL (e.g. https://api.example.com/)' }];
  const scheme = parsed[1]!.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https')
    return [{ field: 'base_url', detail: `base_url scheme must be http or https, got "${scheme}"` }];
  return [];
}

// coder/coder v2.36.0 codersdk/aiproviders.go CreateAIProviderRequest.Validate
function createValidations(request: Schemas['CreateAIProviderRequest']): Validation[] {
  const out: Validation[] = [];
  const keys = request.api_keys ?? [];
  const bedrock = isBedrock(request.settings as Settings) ? (request.settings as Bedrock) : undefined;
  if (request.name === '') out.push({ field: 'name', detail: 'name is required' });
  else if (!nameRegex.test(request.name)) {
    out.push({ field: 'name', detail: `name must match ${nameRegex.source} (lowercase alphanumeric, hyphens between words)` });
  }
  out.push(...baseURLValidations(request.base_url));
  keys.forEach((key, i) => {
    if (key === '') out.push({ field: `api_keys[${i}]`, detail: 'api_keys entries must not be empty' });
    else if (key.trim() !== key)
      out.push({ field: `api_keys[${i}]`, detail: 'api_keys entries must not contain leading or trailing whitespace' });
  });
  if (bedrock && request.type !== 'anthropic' && request.type !== 'bedrock') {
    out.push({ field: 'settings', detail: 'bedrock settings are only valid for type=anthropic or type=bedrock' });
  }
  if (request.type === 'bedrock' && !(bedrock && bedrockConfigured(bedrock))) {
    out.push({ field: 'settings', detail: 'type=bedrock requires bedrock settings' });
  }
  if (request.type === 'bedrock' && keys.length > 0) out.push({ field: 'api_keys', detail: 'type=bedrock does not accept api_keys' });
  if (bedrock) out.push(...bedrockValidations(bedrock, true));
  if (request.type === 'copilot' && keys.length > 0) out.push({ field: 'api_keys', detail: 'type=copilot does not accept api_keys' });
  return out;
}

// coder/coder v2.36.0 codersdk/aiproviders.go UpdateAIProviderRequest.Validate and validateAIProviderKeyMutations
function updateValidations(request: Schemas['UpdateAIProviderRequest']): Validation[] {
  const out: Validation[] = [];
  if (request.base_url !== undefined) out.push(...baseURLValidations(request.base_url));
  const seen = new Map<string, number>();
  (request.api_keys ?? []).forEach((entry, i) => {
    const id = 'id' in entry ? entry.id : undefined;
    const key = 'api_key' in entry ? entry.api_key : undefined;
    if ((id === undefined) === (key === undefined))
      out.push({ field: `api_keys[${i}]`, detail: 'exactly one of id or api_key must be set' });
    else if (key === '') out.push({ field: `api_keys[${i}].api_key`, detail: 'api_key must not be empty' });
    else if (key !== undefined && key.trim() !== key) {
      out.push({ field: `api_keys[${i}].api_key`, detail: 'api_key must not contain leading or trailing whitespace' });
    }
    if (id !== undefined && key === undefined) {
      if (seen.has(id)) out.push({ field: `api_keys[${i}].id`, detail: `id ${id} already referenced at api_keys[${seen.get(id)}]` });
      else seen.set(id, i);
    }
  });
  if (isBedrock(request.settings as Settings)) out.push(...bedrockValidations(request.settings as Bedrock));
  return out;
}

/** coder/coder v2.36.0 coderd/ai_providers.go ensureBedrockExternalID: rand.Text(), 26 base32 characters. */
function withExternalID(b: Bedrock): Bedrock {
  if (!b.role_arn || b.external_id) return b;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  return { ...b, external_id: [...randomBytes(26)].map((x) => alphabet[x % 32]).join('') };
}

/** Stores settings as Coder keeps them: the visible fields in provider.settings, the write-only ones apart. */
function storeSettings(stored: StoredAIProvider, settings: Settings, keepSecrets: boolean): void {
  if (!settings) {
    stored.provider.settings = null;
    stored.bedrockSecrets = {};
    return;
  }
  if (!isBedrock(settings)) {
    stored.provider.settings = structuredClone(settings);
    stored.bedrockSecrets = {};
    return;
  }
  const secrets = keepSecrets ? { ...stored.bedrockSecrets } : {};
  // An omitted credential stays (mergeAIProviderSettings); "" is stored, so it no longer authenticates.
  for (const field of ['access_key', 'access_key_secret'] as const) {
    const value = settings[field];
    if (value === undefined) continue;
    if (value === '') delete secrets[field];
    else secrets[field] = value;
  }
  stored.bedrockSecrets = secrets;
  stored.provider.settings = visibleBedrock(settings);
}

const gated =
  (handler: Handler): Handler =>
  (ctx) =>
    served(ctx.state, 'aiProviders') ? handler(ctx) : routeNotFound;

export const aiProviderHandlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.36.0 coderd/deployment.go deploymentValues (only config.ai.bridge.enabled is modelled). The
  // field is new in v2.27.0 codersdk/deployment.go (DeploymentValues.AI); v2.26.1 codersdk/deployment.go has none.
  getDeploymentConfig: ({ state }) => ({
    status: 200,
    body: {
      config:
        coderVersionAtLeast(state.buildInfo.version, 'v2.27.0') === false ? {} : { ai: { bridge: { enabled: state.aiGatewayEnabled } } },
      options: [],
    },
  }),

  // coder/coder v2.36.0 coderd/ai_providers.go aiProvidersList (GetAIProviders: disabled included, by name)
  listAIProviders: gated(({ state }) => ({
    status: 200,
    body: state.aiProviders
      .filter((p) => !p.deleted)
      .sort((a, b) => (a.provider.name < b.provider.name ? -1 : a.provider.name > b.provider.name ? 1 : 0))
      .map((p) => view(state, p)),
  })),

  // coder/coder v2.36.0 coderd/ai_providers.go aiProvidersGet
  getAIProvider: gated(({ state, params }) => {
    const stored = lookup(state, params.aiProvider as string);
    return isAnswer(stored) ? stored : { status: 200, body: view(state, stored) };
  }),

  // coder/coder v2.36.0 coderd/ai_providers.go aiProvidersCreate
  createAIProvider: gated(({ state, body }) => {
    const request = body as Schemas['CreateAIProviderRequest'];
    const undecodable = decodeSettings(state, request.settings as Settings);
    if (undecodable) return undecodable;
    const validations = createValidations(request);
    if (validations.length) return invalidRequest(validations);
    if (isBedrock(request.settings as Settings) && (request.api_keys?.length ?? 0) > 0) return bedrockRejectsKeys;
    if (state.aiProviders.some((p) => !p.deleted && p.provider.name === request.name)) {
      return {
        status: 409,
        body: {
          message: `AI provider "${request.name}" already exists.`,
          detail: 'execute transaction: pq: duplicate key value violates unique constraint "ai_providers_name_unique"',
        },
      };
    }
    const now = new Date().toISOString();
    const stored: StoredAIProvider = {
      provider: {
        id: randomUUID(),
        type: request.type,
        name: request.name,
        display_name: request.display_name ?? '',
        enabled: request.enabled ?? false,
        base_url: request.base_url,
        settings: null,
        created_at: now,
        updated_at: now,
        // Older versions ignore the field, as Go's JSON decoding does.
        ...(served(state, 'aiProviderIcon') ? { icon: request.icon ?? '' } : {}),
      },
      // One timestamp for every key of the request (insertAIProviderKeys).
      keys: (request.api_keys ?? []).map((value) => ({ id: randomUUID(), value, created_at: now })),
      bedrockSecrets: {},
      deleted: false,
    };
    const settings = request.settings as Settings;
    storeSettings(stored, isBedrock(settings) ? withExternalID(settings) : settings, false);
    state.aiProviders.push(stored);
    // The create answers the keys in the order they were inserted.
    return { status: 201, body: view(state, stored, stored.keys) };
  }),

  // coder/coder v2.36.0 coderd/ai_providers.go aiProvidersUpdate (mergeAIProviderSettings, applyAIProviderKeyOps)
  updateAIProvider: gated(({ state, params, body }) => {
    const request = { ...(body as Schemas['UpdateAIProviderRequest']) };
    const undecodable = decodeSettings(state, request.settings as Settings);
    if (undecodable) return undecodable;
    // A pointer field: JSON null leaves it nil, as if not sent.
    if (request.settings === null) delete request.settings;
    if (Object.values(request).every((v) => v === undefined)) return refused('At least one field must be provided.');
    const validations = updateValidations(request);
    if (validations.length) return invalidRequest(validations);
    const found = lookup(state, params.aiProvider as string);
    if (isAnswer(found)) return found;

    const next = structuredClone(found);
    const held = next.provider.settings as Settings;
    const patch = request.settings as Settings;
    let settings: Settings = held;
    if (patch) {
      if (isBedrock(patch) && patch.external_id && patch.external_id !== (isBedrock(held) ? held.external_id : undefined)) {
        return refused('The Bedrock external ID is server-generated and cannot be changed.');
      }
      settings = isBedrock(patch) && isBedrock(held) ? { ...patch, external_id: held.external_id } : patch;
    }
    if (isBedrock(settings) && next.provider.type !== 'anthropic' && next.provider.type !== 'bedrock') {
      return refused('Bedrock settings are only valid for type=anthropic or type=bedrock.');
    }
    const keys = request.api_keys;
    if (keys !== undefined && isBedrock(settings) && keys.length > 0) return bedrockRejectsKeys;
    if (keys !== undefined && next.provider.type === 'copilot' && keys.length > 0) {
      return refused('Copilot providers do not accept api_keys; they authenticate via request-time GitHub OAuth tokens.');
    }
    if (patch) storeSettings(next, isBedrock(settings) ? withExternalID(settings) : settings, isBedrock(held));
    else if (isBedrock(settings)) next.provider.settings = visibleBedrock(withExternalID(settings));

    if (request.display_name !== undefined) next.provider.display_name = request.display_name;
    if (request.icon !== undefined && served(state, 'aiProviderIcon')) next.provider.icon = request.icon;
    if (request.enabled !== undefined) next.provider.enabled = request.enabled;
    if (request.base_url !== undefined) next.provider.base_url = request.base_url;
    if (keys !== undefined) {
      const kept = new Set<string>();
      const added: string[] = [];
      for (const entry of keys) {
        if ('id' in entry) {
          if (!found.keys.some((k) => k.id === entry.id)) {
            return {
              status: 400,
              body: {
                message: 'api_keys references an unknown id for this provider',
                detail: `execute transaction: api_keys references an unknown id for this provider: ${entry.id}: api_keys references an unknown id for this provider`,
              },
            };
          }
          kept.add(entry.id);
        } else added.push(entry.api_key);
      }
      const now = new Date().toISOString();
      next.keys = [...found.keys.filter((k) => kept.has(k.id)), ...added.map((value) => ({ id: randomUUID(), value, created_at: now }))];
    }
    next.provider.updated_at = new Date().toISOString();
    Object.assign(found, next);
    return { status: 200, body: view(state, found) };
  }),

  // coder/coder v2.36.0 coderd/ai_providers.go aiProvidersDelete (DeleteAIProviderByID: deleted and disabled)
  deleteAIProvider: gated(({ state, params }) => {
    const stored = lookup(state, params.aiProvider as string);
    if (isAnswer(stored)) return stored;
    stored.deleted = true;
    stored.provider.enabled = false;
    return { status: 204 };
  }),
};
