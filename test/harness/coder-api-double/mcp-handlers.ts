// Workspace and template reads, and workspace builds, as the MCP server's tools use them: list, read by
// owner+name or organization+name, and a start/stop build that becomes the workspace's latest build.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import type { Handler } from './handlers.ts';
import type { CoderApiDoubleState } from './state.ts';

type Schemas = components['schemas'];

const notFound = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };
const activeStatuses = new Set(['pending', 'starting', 'stopping', 'canceling', 'deleting']);

function organizationOf(state: CoderApiDoubleState, idOrName: string): Schemas['Organization'] | undefined {
  if (idOrName === 'default') return state.organizations.find((o) => o.is_default);
  return state.organizations.find((o) => o.id === idOrName || o.name === idOrName);
}

export const mcpHandlers: Readonly<Record<string, Handler>> = {
  listWorkspaces: ({ state }) => ({ status: 200, body: { workspaces: state.workspaces, count: state.workspaces.length } }),

  getWorkspaceByOwnerAndName: ({ state, params, user }) => {
    const owner = params.user === 'me' ? user?.username : params.user;
    const found = state.workspaces.find((ws) => ws.owner_name === owner && ws.name === params.workspaceName);
    return found ? { status: 200, body: found } : notFound;
  },

  createWorkspaceBuild: ({ state, params, body, user }) => {
    const ws = state.workspaces.find((w) => w.id === params.workspace);
    if (!ws) return notFound;
    if (activeStatuses.has(ws.latest_build.status)) {
      return { status: 409, body: { message: 'A workspace build is already active.' } };
    }
    const { transition } = body as Schemas['CreateWorkspaceBuildRequest'];
    const now = new Date().toISOString();
    const build: Schemas['WorkspaceBuild'] = {
      id: randomUUID(),
      created_at: now,
      updated_at: now,
      workspace_id: ws.id,
      workspace_name: ws.name,
      workspace_owner_id: ws.owner_id,
      template_version_id: ws.latest_build.template_version_id,
      build_number: ws.latest_build.build_number + 1,
      transition,
      initiator_id: user?.id,
      initiator_name: user?.username,
      job: { id: randomUUID(), created_at: now, status: 'pending' },
      reason: 'initiator',
      status: 'pending',
    };
    ws.latest_build = build;
    ws.updated_at = now;
    return { status: 201, body: build };
  },

  listTemplates: ({ state }) => ({ status: 200, body: state.templates }),

  getTemplateByName: ({ state, params }) => {
    const org = organizationOf(state, String(params.organization));
    const found = org && state.templates.find((t) => t.organization_id === org.id && t.name === params.templateName);
    return found ? { status: 200, body: found } : notFound;
  },
};
