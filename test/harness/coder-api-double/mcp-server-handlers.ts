// MCP server configs as coder/coder v2.36.0 coderd/mcp.go and codersdk/mcp.go serve them at
// /api/experimental/mcp/servers, from the release coder-releases.ts names. With state.mcpApi.experimentsOff
// it answers 403 as v2.26.1's RequireExperiment middleware does for the whole /api/experimental/mcp route
// (coderd/httpmw/experiments.go), before any route is matched; with experimentalPath false, 404 as a build
// without the route. Secrets are write-only: answers carry has_* flags; changing auth_type clears the old
// type's fields.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import { coderHasFeature } from '../../../src/controllers/shared/coder-object/coder-releases.ts';
import { routeNotFound, type Answer, type Handler, type HandlerContext } from './handlers.ts';
import type { CoderApiDoubleState, StoredMCPServer } from './state.ts';

type Schemas = components['schemas'];

const authFields: Partial<Record<Schemas['MCPAuthType'], string[]>> = {
  oauth2: ['oauth2_client_id', 'oauth2_auth_url', 'oauth2_token_url', 'oauth2_scopes', 'oauth2_revocation_url'],
  api_key: ['api_key_header'],
};

/** httpapi.ResourceNotFound of Coder. */
const notFound: Answer = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };

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

/** Whether a path is there at all, and Coder's answer when it is not. */
type Served = (state: CoderApiDoubleState) => Answer | undefined;

const experimentalServed: Served = (state) => {
  if (state.mcpApi.experimentsOff.length > 0) {
    return {
      status: 403,
      body: { message: `This functionality requires enabling the following experiments: ${state.mcpApi.experimentsOff.join(', ')}` },
    };
  }
  if (!state.mcpApi.experimentalPath || coderHasFeature(state.buildInfo.version, 'mcpServerConfigs') === false) return routeNotFound;
  return undefined;
};

function handlersFor(served: Served): Record<'list' | 'create' | 'get' | 'update' | 'delete', Handler> {
  const gated =
    (handler: Handler): Handler =>
    (ctx: HandlerContext) =>
      served(ctx.state) ?? handler(ctx);
  const find = (state: CoderApiDoubleState, id: unknown) => state.mcpServers.find((s) => s.config.id === id);
  return {
    list: gated(({ state }) => ({ status: 200, body: state.mcpServers.map(view) })),
    create: gated(({ state, body }) => {
      const request = body as Schemas['CreateMCPServerConfigRequest'];
      if (state.mcpServers.some((s) => s.config.slug === request.slug)) {
        return { status: 409, body: { message: 'MCP server config already exists.' } };
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
        return { status: 409, body: { message: 'MCP server config slug already exists.' } };
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

const served = handlersFor(experimentalServed);

export const mcpServerHandlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.36.0 coderd/mcp.go listMCPServerConfigs
  listMCPServerConfigs: served.list,
  // coder/coder v2.36.0 coderd/mcp.go createMCPServerConfig
  createMCPServerConfig: served.create,
  // coder/coder v2.36.0 coderd/mcp.go getMCPServerConfig
  getMCPServerConfig: served.get,
  // coder/coder v2.36.0 coderd/mcp.go updateMCPServerConfig
  updateMCPServerConfig: served.update,
  // coder/coder v2.36.0 coderd/mcp.go deleteMCPServerConfig
  deleteMCPServerConfig: served.delete,
};
