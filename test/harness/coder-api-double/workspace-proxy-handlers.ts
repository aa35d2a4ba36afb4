// The workspace-proxy operations of the API double: register, read, change (and issue a new token), list and
// deregister, as coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go does them. The real server answers
// these routes 403 without a license, so what only a license shows is here:
// - The route is mounted behind RequireFeatureMW(workspace_proxy) outside the API key middleware
//   (enterprise/coderd/coderd.go), so without the feature every call is 403 "Workspace Proxy is a Premium
//   feature. Contact sales!" (enterprise/coderd/templates.go), signed in or not, before its body is read. An
//   AGPL build has no such route: 404 "Route not found.".
// - The primary region is a proxy too: computed, not stored (coderd/workspaceproxies.go PrimaryRegion), named
//   "primary", with the deployment id; it leads the list and cannot be deleted or renamed.
// - A delete only marks the proxy deleted (UpdateWorkspaceProxyDeleted): a lookup by id still finds it
//   (coderd/database/queries/proxies.sql GetWorkspaceProxyByID has no filter), one by name does not.
// - Names are unique ignoring case among the proxies not deleted (index workspace_proxies_lower_name_idx).
// - The create stores display name and icon as sent (empty when left out); the change requires every field
//   (codersdk/workspaceproxy.go PatchWorkspaceProxy, validate "required": httpapi.Read answers 400 "Validation
//   failed." for an empty one) and then writes name, display name and icon as sent.
import { randomBytes, randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import { gatedBeforeApiKey, routeNotFound, type Answer, type Handler } from './handlers.ts';
import { premiumRefusal } from './premium-feature.ts';
import type { CoderApiDoubleState, StoredWorkspaceProxy } from './state.ts';

type Schemas = components['schemas'];
type WorkspaceProxy = Schemas['WorkspaceProxy'];

/** A proxy session token in Coder's shape: `<id>:<secret>`. */
function proxyToken(id: string): string {
  return `${id}:${randomBytes(24).toString('hex')}`;
}

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The primary region as enterprise/coderd/workspaceproxy.go convertProxy shows it: always healthy, created
 * and updated now, display name and icon from the site config ("Default" and the house emoji unless changed).
 */
function primaryProxy(state: CoderApiDoubleState): WorkspaceProxy {
  const now = new Date().toISOString();
  return {
    id: state.buildInfo.deployment_id!,
    name: 'primary',
    display_name: state.defaultProxy.display_name,
    icon_url: state.defaultProxy.icon_url,
    healthy: true,
    path_app_url: state.buildInfo.dashboard_url ?? '',
    wildcard_hostname: '',
    derp_enabled: false,
    derp_only: false,
    status: { status: 'ok', report: { errors: [], warnings: [] }, checked_at: now },
    created_at: now,
    updated_at: now,
    deleted: false,
    version: '',
  };
}

type Found = { primary: true } | { primary: false; stored: StoredWorkspaceProxy };

/** coder/coder v2.26.1 coderd/httpmw/workspaceproxy.go ExtractWorkspaceProxyParam: "primary" or the deployment id, an id, else a name. */
function findProxy(state: CoderApiDoubleState, param: unknown): Found | undefined {
  const key = String(param);
  if (key === 'primary' || key === state.buildInfo.deployment_id) return { primary: true };
  const stored = uuidShape.test(key)
    ? state.workspaceProxies.find((p) => p.proxy.id === key.toLowerCase())
    : state.workspaceProxies.find((p) => p.proxy.name === key && !p.proxy.deleted);
  return stored && { primary: false, stored };
}

/** Another proxy, not deleted, of that name in any letter case. */
function nameInUse(state: CoderApiDoubleState, name: string, except?: StoredWorkspaceProxy): boolean {
  return state.workspaceProxies.some((p) => p !== except && !p.proxy.deleted && p.proxy.name.toLowerCase() === name.toLowerCase());
}

const proxyNotFound: Answer = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };

/** enterprise/coderd/workspaceproxy.go patchPrimaryWorkspaceProxy: only display name and icon change, in the site config. */
function patchPrimary(state: CoderApiDoubleState, patch: Schemas['PatchWorkspaceProxy']): Answer {
  if (patch.name !== '' && patch.name !== 'primary') {
    return {
      status: 400,
      body: {
        message: "Cannot update name of default primary proxy, did you mean to update the 'display name'?",
        validations: [{ field: 'name', detail: 'Cannot update name of default primary proxy' }],
      },
    };
  }
  state.defaultProxy = { display_name: patch.display_name, icon_url: patch.icon };
  return { status: 200, body: { proxy: primaryProxy(state), proxy_token: '' } };
}

const handlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go postWorkspaceProxy
  createWorkspaceProxy: ({ state, body }) => {
    const request = body as Schemas['CreateWorkspaceProxyRequest'];
    if (request.name.toLowerCase() === 'primary') {
      return {
        status: 400,
        body: {
          message: 'The name "primary" is reserved for the primary region.',
          detail: "Cannot name a workspace proxy 'primary'.",
          validations: [{ field: 'name', detail: 'Reserved name' }],
        },
      };
    }
    if (nameInUse(state, request.name)) {
      return { status: 409, body: { message: `Workspace proxy with name "${request.name}" already exists.` } };
    }
    const now = new Date().toISOString();
    const id = randomUUID();
    const proxy: WorkspaceProxy = {
      id,
      name: request.name,
      display_name: request.display_name ?? '',
      icon_url: request.icon ?? '',
      healthy: false,
      path_app_url: '',
      wildcard_hostname: '',
      derp_enabled: true,
      derp_only: false,
      status: { status: 'unregistered', report: { errors: [], warnings: [] }, checked_at: now },
      created_at: now,
      updated_at: now,
      deleted: false,
      version: '',
    };
    const stored = { proxy, token: proxyToken(id) };
    state.workspaceProxies.push(stored);
    return { status: 201, body: { proxy, proxy_token: stored.token } };
  },

  // coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go workspaceProxies (fetchWorkspaceProxies)
  listWorkspaceProxies: ({ state }) => ({
    status: 200,
    body: { regions: [primaryProxy(state), ...state.workspaceProxies.filter((p) => !p.proxy.deleted).map((p) => p.proxy)] },
  }),

  // coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go workspaceProxy
  getWorkspaceProxy: ({ state, params }) => {
    const found = findProxy(state, params.workspaceProxy);
    if (!found) return proxyNotFound;
    return { status: 200, body: found.primary ? primaryProxy(state) : found.stored.proxy };
  },

  // coder/coder v2.26.1 enterprise/coderd/workspaceproxy.go patchWorkspaceProxy
  updateWorkspaceProxy: ({ state, params, body }) => {
    const found = findProxy(state, params.workspaceProxy);
    if (!found) return proxyNotFound;
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
    if (found.primary) return patchPrimary(state, patch);
    const { stored } = found;
    // The update handles no unique violation: it is answered as any database error (httpapi.InternalServerError).
    if (!stored.proxy.deleted && nameInUse(state, patch.name, stored)) {
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
    const found = findProxy(state, params.workspaceProxy);
    if (!found) return proxyNotFound;
    if (found.primary) return { status: 400, body: { message: 'Cannot delete primary proxy' } };
    found.stored.proxy = { ...found.stored.proxy, deleted: true };
    return { status: 200, body: { message: 'Proxy has been deleted!' } };
  },
};

/** An AGPL build mounts no /workspaceproxies (coderd/coderd.go); the enterprise one gates it before the API key. */
const refusedBeforeApiKey = (state: CoderApiDoubleState): Answer | undefined => {
  if (!state.enterprise) return routeNotFound;
  return state.entitlements.features.workspace_proxy?.enabled ? undefined : premiumRefusal('workspace_proxy');
};

export const workspaceProxyHandlers: Readonly<Record<string, Handler>> = Object.fromEntries(
  Object.entries(handlers).map(([operation, handler]) => [operation, gatedBeforeApiKey(refusedBeforeApiKey, handler)]),
);
