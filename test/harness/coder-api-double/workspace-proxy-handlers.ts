// The workspace-proxy operations of the API double: register, read by id or name, change (and issue a new
// token), list and deregister, as coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go does them. The real
// server answers these routes 403 without a license, so what only a license shows is here: the create stores
// display name and icon as sent (empty when left out), and the change requires every field
// (codersdk/workspaceproxy.go PatchWorkspaceProxy, validate "required": httpapi.Read answers 400 "Validation
// failed." for an empty one) and then writes name, display name and icon as sent. Every route needs the
// workspace_proxy feature, as enterprise/coderd/coderd.go wraps /workspaceproxies in RequireFeatureMW, which
// answers 403 "Workspace Proxy is a Premium feature. Contact sales!" (enterprise/coderd/templates.go).
import { randomBytes, randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import type { Answer, Handler } from './handlers.ts';
import { requireFeature } from './premium-feature.ts';
import type { CoderApiDoubleState, StoredWorkspaceProxy } from './state.ts';

type Schemas = components['schemas'];

/** A proxy session token in Coder's shape: `<id>:<secret>`. */
function proxyToken(id: string): string {
  return `${id}:${randomBytes(24).toString('hex')}`;
}

/** By id first, then by name, as Coder's workspace proxy middleware looks it up. */
function findProxy(state: CoderApiDoubleState, idOrName: unknown): StoredWorkspaceProxy | undefined {
  return state.workspaceProxies.find((p) => p.proxy.id === idOrName) ?? state.workspaceProxies.find((p) => p.proxy.name === idOrName);
}

const proxyNotFound: Answer = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };

const handlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go postWorkspaceProxy
  createWorkspaceProxy: ({ state, body }) => {
    const request = body as Schemas['CreateWorkspaceProxyRequest'];
    if (findProxy(state, request.name)) {
      return { status: 409, body: { message: `Workspace proxy with name "${request.name}" already exists.` } };
    }
    const now = new Date().toISOString();
    const id = randomUUID();
    const proxy: Schemas['WorkspaceProxy'] = {
      id,
      name: request.name,
      display_name: request.display_name ?? '',
      icon_url: request.icon ?? '',
      healthy: false,
      path_app_url: '',
      wildcard_hostname: '',
      derp_enabled: false,
      derp_only: false,
      status: { status: 'unregistered', checked_at: now },
      created_at: now,
      updated_at: now,
      deleted: false,
      version: '',
    };
    const stored = { proxy, token: proxyToken(id) };
    state.workspaceProxies.push(stored);
    return { status: 201, body: { proxy, proxy_token: stored.token } };
  },

  // coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go workspaceProxies
  listWorkspaceProxies: ({ state }) => ({ status: 200, body: { regions: state.workspaceProxies.map((p) => p.proxy) } }),

  // coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go workspaceProxy
  getWorkspaceProxy: ({ state, params }) => {
    const stored = findProxy(state, params.workspaceProxy);
    return stored ? { status: 200, body: stored.proxy } : proxyNotFound;
  },

  // coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go patchWorkspaceProxy
  updateWorkspaceProxy: ({ state, params, body }) => {
    const stored = findProxy(state, params.workspaceProxy);
    if (!stored) return proxyNotFound;
    const patch = body as Schemas['PatchWorkspaceProxy'];
    // A field left out is refused by the document's required list; an empty one here, as Go's "required" does.
    const empty = (['name', 'display_name', 'icon'] as const).filter((field) => patch[field] === '');
    if (empty.length > 0) {
      return {
        status: 400,
        body: {
          message: 'Validation failed.',
          validations: empty.map((field) => ({ field, detail: 'Validation failed for tag "required" with value: ""' })),
        },
      };
    }
    const clash = state.workspaceProxies.find((p) => p !== stored && p.proxy.name === patch.name);
    // The update handles no unique violation: it is answered as any database error (httpapi.InternalServerError).
    if (clash) {
      return {
        status: 500,
        body: {
          message: 'An internal server error occurred.',
          detail: 'pq: duplicate key value violates unique constraint "workspace_proxies_lower_name_idx"',
        },
      };
    }
    stored.proxy = {
      ...stored.proxy,
      name: patch.name,
      display_name: patch.display_name,
      icon_url: patch.icon,
      updated_at: new Date().toISOString(),
    };
    if (patch.regenerate_token) stored.token = proxyToken(stored.proxy.id);
    return { status: 200, body: { proxy: stored.proxy, proxy_token: patch.regenerate_token ? stored.token : '' } };
  },

  // coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go deleteWorkspaceProxy
  deleteWorkspaceProxy: ({ state, params }) => {
    const stored = findProxy(state, params.workspaceProxy);
    if (!stored) return proxyNotFound;
    state.workspaceProxies.splice(state.workspaceProxies.indexOf(stored), 1);
    return { status: 200, body: { message: 'Proxy has been deleted!' } };
  },
};

export const workspaceProxyHandlers: Readonly<Record<string, Handler>> = Object.fromEntries(
  Object.entries(handlers).map(([operation, handler]) => [operation, requireFeature('workspace_proxy', handler)]),
);
