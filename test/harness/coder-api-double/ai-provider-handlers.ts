// The AI providers API (/api/v2/ai/providers) as coder/coder v2.36.0 coderd/ai_providers.go serves it, from
// the release coder-releases.ts names: create, read by id or name, update with the whole-key-set rule, soft
// delete. Icons only where the release has them (Go's decoding drops the field otherwise); settings of type
// upstream-headers are refused as v2.36.0's decoder refuses any type but bedrock (codersdk/aiproviders.go:
// httpapi.Read answers 400), and taken only by a development build. Older versions answer 404 on every route.
// Also the deployment config, which says whether AI Gateway is on.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import { coderHasFeature, type CoderFeature } from '../../../src/controllers/shared/coder-releases.ts';
import { routeNotFound, type Answer, type Handler } from './handlers.ts';
import type { CoderApiDoubleState, StoredAIProvider } from './state.ts';

type Schemas = components['schemas'];

const served = (state: CoderApiDoubleState, feature: CoderFeature) => coderHasFeature(state.buildInfo.version, feature) !== false;

const invalid = (field: string, detail: string): Answer => ({
  status: 400,
  body: { message: 'Invalid request.', validations: [{ field, detail }] },
});

function masked(value: string): string {
  return `${value.slice(0, 4)}***${value.slice(-4)}`;
}

function live(state: CoderApiDoubleState, idOrName: string): StoredAIProvider | undefined {
  return state.aiProviders.find((p) => !p.deleted && (p.provider.id === idOrName || p.provider.name === idOrName));
}

/** The provider as Coder answers: keys masked, write-only Bedrock fields left out. */
function view(stored: StoredAIProvider): Schemas['AIProvider'] {
  return structuredClone({
    ...stored.provider,
    api_keys: stored.keys.map((k) => ({ id: k.id, masked: masked(k.value), created_at: k.created_at })),
  });
}

type Settings = Schemas['AIProviderBedrockSettings'] | Schemas['AIProviderUpstreamHeadersSettings'] | null | undefined;

/** Checks the settings for the type and version; stores the write-only fields apart. Returns a refusal or nothing. */
function applySettings(state: CoderApiDoubleState, stored: StoredAIProvider, settings: Settings): Answer | undefined {
  if (settings === undefined) return undefined;
  if (settings === null) {
    stored.provider.settings = null;
    stored.bedrockSecrets = {};
    return undefined;
  }
  if (settings._type === 'upstream-headers') {
    if (!served(state, 'aiProviderUpstreamHeaders')) {
      return { status: 400, body: { message: 'Request body must be valid JSON.', detail: 'unknown settings type "upstream-headers"' } };
    }
    stored.provider.settings = structuredClone(settings);
    return undefined;
  }
  if (!['bedrock', 'anthropic'].includes(stored.provider.type))
    return invalid('settings', 'bedrock settings need type bedrock or anthropic');
  const { access_key, access_key_secret, ...visible } = settings;
  // Omitted write-only fields stay; "" clears them.
  for (const [field, value] of [
    ['access_key', access_key],
    ['access_key_secret', access_key_secret],
  ] as const) {
    if (value === undefined) continue;
    if (value === '') delete stored.bedrockSecrets[field];
    else stored.bedrockSecrets[field] = value;
  }
  stored.provider.settings = structuredClone(visible);
  return undefined;
}

function keyRule(type: string, count: number): Answer | undefined {
  if ((type === 'bedrock' || type === 'copilot') && count > 0) return invalid('api_keys', `type ${type} takes no api_keys`);
  return undefined;
}

const gated =
  (handler: Handler): Handler =>
  (ctx) =>
    served(ctx.state, 'aiProviders') ? handler(ctx) : routeNotFound;

export const aiProviderHandlers: Readonly<Record<string, Handler>> = {
  getDeploymentConfig: ({ state }) => ({
    status: 200,
    body: { config: { ai: { bridge: { enabled: state.aiGatewayEnabled } } }, options: [] },
  }),

  listAIProviders: gated(({ state }) => ({ status: 200, body: state.aiProviders.filter((p) => !p.deleted).map(view) })),

  getAIProvider: gated(({ state, params }) => {
    const stored = live(state, params.aiProvider as string);
    return stored ? { status: 200, body: view(stored) } : { status: 404, body: { message: 'AI provider not found.' } };
  }),

  createAIProvider: gated(({ state, body }) => {
    const request = body as Schemas['CreateAIProviderRequest'];
    if (live(state, request.name)) return invalid('name', `a provider named "${request.name}" already exists`);
    const refused = keyRule(request.type, request.api_keys?.length ?? 0);
    if (refused) return refused;
    if (request.type === 'bedrock' && (request.settings as Settings)?._type !== 'bedrock') {
      return invalid('settings', 'type bedrock needs bedrock settings');
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
        ...(request.icon !== undefined && served(state, 'aiProviderIcon') ? { icon: request.icon } : {}),
      },
      keys: (request.api_keys ?? []).map((value) => ({ id: randomUUID(), value, created_at: now })),
      bedrockSecrets: {},
      deleted: false,
    };
    const settingsRefused = applySettings(state, stored, request.settings as Settings);
    if (settingsRefused) return settingsRefused;
    state.aiProviders.push(stored);
    return { status: 201, body: view(stored) };
  }),

  updateAIProvider: gated(({ state, params, body }) => {
    const stored = live(state, params.aiProvider as string);
    if (!stored) return { status: 404, body: { message: 'AI provider not found.' } };
    const request = body as Schemas['UpdateAIProviderRequest'];
    const next = structuredClone(stored);
    if (request.api_keys !== undefined) {
      const refused = keyRule(stored.provider.type, request.api_keys.length);
      if (refused) return refused;
      const keys: StoredAIProvider['keys'] = [];
      for (const entry of request.api_keys) {
        if ('id' in entry) {
          const kept = stored.keys.find((k) => k.id === entry.id);
          if (!kept || keys.some((k) => k.id === entry.id)) return invalid('api_keys', `unknown or repeated key id ${entry.id}`);
          keys.push(kept);
        } else {
          keys.push({ id: randomUUID(), value: entry.api_key, created_at: new Date().toISOString() });
        }
      }
      next.keys = keys;
    }
    if (request.display_name !== undefined) next.provider.display_name = request.display_name;
    if (request.enabled !== undefined) next.provider.enabled = request.enabled;
    if (request.base_url !== undefined) next.provider.base_url = request.base_url;
    if (request.icon !== undefined && served(state, 'aiProviderIcon')) next.provider.icon = request.icon;
    const settingsRefused = applySettings(state, next, request.settings as Settings);
    if (settingsRefused) return settingsRefused;
    next.provider.updated_at = new Date().toISOString();
    Object.assign(stored, next);
    return { status: 200, body: view(stored) };
  }),

  deleteAIProvider: gated(({ state, params }) => {
    const stored = live(state, params.aiProvider as string);
    if (!stored) return { status: 404, body: { message: 'AI provider not found.' } };
    stored.deleted = true;
    return { status: 204 };
  }),
};
