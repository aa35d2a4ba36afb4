// MCP server configs as Coder serves them: the experimental path (/api/experimental/mcp/servers) from
// v2.32 and the /api/v2/ai-gateway/mcp-servers path from v2.35 in this double (both then, the older as an
// alias). Secrets are write-only: answers carry has_* flags; changing auth_type clears the old type's fields.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import { coderVersionAtLeast } from '../../../src/controllers/shared/coder-version.ts';
import { routeNotFound, type Handler } from './handlers.ts';
import type { CoderApiDoubleState, StoredMCPServer } from './state.ts';

type Schemas = components['schemas'];

export const experimentalMCPServersSince = 'v2.32.0';
export const mcpServersSince = 'v2.35.0';

const authFields: Partial<Record<Schemas['MCPAuthType'], string[]>> = {
  oauth2: ['oauth2_client_id', 'oauth2_auth_url', 'oauth2_token_url', 'oauth2_scopes', 'oauth2_revocation_url'],
  api_key: ['api_key_header'],
  custom_headers: ['custom_headers_user_keys', 'custom_headers_user_key_descriptions'],
  external_auth: ['external_auth_provider_id'],
};

function view(stored: StoredMCPServer): Schemas['MCPServerConfig'] {
  return structuredClone({
    ...stored.config,
    has_oauth2_secret: stored.secrets.oauth2_client_secret !== undefined,
    has_api_key: stored.secrets.api_key_value !== undefined,
    has_custom_headers: Object.keys(stored.secrets.custom_headers ?? {}).length > 0,
  });
}

type Request = Schemas['CreateMCPServerConfigRequest'] | Schemas['UpdateMCPServerConfigRequest'];

function apply(stored: StoredMCPServer, request: Request): void {
  const { oauth2_client_secret, api_key_value, custom_headers, ...visible } = request;
  if (visible.auth_type !== undefined && visible.auth_type !== stored.config.auth_type) {
    for (const field of authFields[stored.config.auth_type] ?? []) delete (stored.config as Record<string, unknown>)[field];
    stored.secrets = {};
  }
  Object.assign(stored.config, visible, { updated_at: new Date().toISOString() });
  if (oauth2_client_secret !== undefined) stored.secrets.oauth2_client_secret = oauth2_client_secret;
  if (api_key_value !== undefined) stored.secrets.api_key_value = api_key_value;
  if (custom_headers !== undefined) stored.secrets.custom_headers = { ...custom_headers };
}

function handlersFor(since: string): Record<'list' | 'create' | 'get' | 'update' | 'delete', Handler> {
  const gated =
    (handler: Handler): Handler =>
    (ctx) =>
      coderVersionAtLeast(ctx.state.buildInfo.version, since) === false ? routeNotFound : handler(ctx);
  const find = (state: CoderApiDoubleState, id: unknown) => state.mcpServers.find((s) => s.config.id === id);
  const notFound = { status: 404, body: { message: 'MCP server config not found.' } };
  return {
    list: gated(({ state }) => ({ status: 200, body: state.mcpServers.map(view) })),
    create: gated(({ state, body }) => {
      const request = body as Schemas['CreateMCPServerConfigRequest'];
      if (state.mcpServers.some((s) => s.config.slug === request.slug)) {
        return { status: 409, body: { message: `An MCP server config with slug "${request.slug}" already exists.` } };
      }
      const now = new Date().toISOString();
      const stored: StoredMCPServer = {
        config: {
          id: randomUUID(),
          created_at: now,
          updated_at: now,
          display_name: request.display_name,
          slug: request.slug,
          url: request.url,
          transport: request.transport,
          auth_type: request.auth_type,
          availability: request.availability,
          enabled: false,
        },
        secrets: {},
      };
      apply(stored, request);
      state.mcpServers.push(stored);
      return { status: 201, body: view(stored) };
    }),
    get: gated(({ state, params }) => {
      const stored = find(state, params.mcpServer);
      return stored ? { status: 200, body: view(stored) } : notFound;
    }),
    update: gated(({ state, params, body }) => {
      const stored = find(state, params.mcpServer);
      if (!stored) return notFound;
      const request = body as Schemas['UpdateMCPServerConfigRequest'];
      if (request.slug !== undefined && state.mcpServers.some((s) => s !== stored && s.config.slug === request.slug)) {
        return { status: 409, body: { message: `An MCP server config with slug "${request.slug}" already exists.` } };
      }
      apply(stored, request);
      return { status: 200, body: view(stored) };
    }),
    delete: gated(({ state, params }) => {
      const index = state.mcpServers.findIndex((s) => s.config.id === params.mcpServer);
      if (index < 0) return notFound;
      state.mcpServers.splice(index, 1);
      return { status: 204 };
    }),
  };
}

const current = handlersFor(mcpServersSince);
const experimental = handlersFor(experimentalMCPServersSince);

export const mcpServerHandlers: Readonly<Record<string, Handler>> = {
  listMCPServerConfigs: current.list,
  createMCPServerConfig: current.create,
  getMCPServerConfig: current.get,
  updateMCPServerConfig: current.update,
  deleteMCPServerConfig: current.delete,
  listMCPServerConfigsExperimental: experimental.list,
  createMCPServerConfigExperimental: experimental.create,
  getMCPServerConfigExperimental: experimental.get,
  updateMCPServerConfigExperimental: experimental.update,
  deleteMCPServerConfigExperimental: experimental.delete,
};
