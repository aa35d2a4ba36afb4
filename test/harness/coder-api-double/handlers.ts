// The operations the API double really implements, by operationId. Every other operation of the
// document answers 501 (see coder-api-double.ts) until the issue that needs it implements it here.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import { aiGatewayKeyHandlers } from './ai-gateway-key-handlers.ts';
import { aiProviderHandlers } from './ai-provider-handlers.ts';
import { mcpServerHandlers } from './mcp-server-handlers.ts';
import { provisionerKeyHandlers } from './provisioner-key-handlers.ts';
import { decodeJwtClaims, type CoderApiDoubleState } from './state.ts';
import { templateHandlers } from './template-handlers.ts';
import { workspaceHandlers } from './workspace-handlers.ts';
import { workspaceProxyHandlers } from './workspace-proxy-handlers.ts';

export interface HandlerContext {
  state: CoderApiDoubleState;
  /** Path, query and header parameters, already checked and typed against the document. */
  params: Record<string, unknown>;
  /** The JSON body, already checked against the document. */
  body: unknown;
  /** The user whose token came with the request (secured operations always have one). */
  user?: components['schemas']['User'];
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = ((ctx: HandlerContext) => Answer) & {
  /**
   * Route middleware Coder mounts outside its API key middleware (RequireFeatureMW on /workspaceproxies): its
   * answer comes before authentication and before the body is read.
   */
  beforeApiKey?: (state: CoderApiDoubleState) => Answer | undefined;
};

export const routeNotFound: Answer = { status: 404, body: { message: 'Route not found.' } };

/**
 * A route only enterprise/coderd/coderd.go mounts on /api/v2. An AGPL build (state.enterprise false; coder/coder
 * v2.26.1 coderd/coderd.go) has none, so its /api/v2 router answers "Route not found." before any
 * authentication.
 */
function enterpriseRoute(handler: Handler): Handler {
  return gatedBeforeApiKey((state) => (state.enterprise ? undefined : routeNotFound), handler);
}

/** `handler` behind route middleware that answers before the API key: `gate`'s answer, when it has one, wins. */
export function gatedBeforeApiKey(gate: (state: CoderApiDoubleState) => Answer | undefined, handler: Handler): Handler {
  return Object.assign((ctx: HandlerContext) => gate(ctx.state) ?? handler(ctx), { beforeApiKey: gate });
}

export const handlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.26.1 coderd/deployment.go buildInfoHandler
  getBuildInfo: ({ state }) => ({ status: 200, body: state.buildInfo }),

  // coder/coder v2.26.1 coderd/users.go userByName (me)
  getCurrentUser: ({ user }) => ({ status: 200, body: user }),

  // coder/coder v2.26.1 enterprise/coderd/licenses.go postLicense
  uploadLicense: enterpriseRoute(({ state, body }) => {
    const jwt = (body as { license: string }).license;
    const claims = decodeJwtClaims(jwt);
    if (!claims) {
      return { status: 400, body: { message: 'Invalid license', detail: 'token contains an invalid number of segments' } };
    }
    // Coder inserts the JWT under a unique index and answers the violation as a 500.
    if (state.licenses.some((stored) => stored.jwt === jwt)) {
      return {
        status: 500,
        body: {
          message: 'Unable to add license to database',
          detail: 'pq: duplicate key value violates unique constraint "licenses_jwt_key"',
        },
      };
    }
    const uuid = typeof claims.jti === 'string' && /^[0-9a-f-]{36}$/i.test(claims.jti) ? claims.jti : randomUUID();
    const license = { id: state.nextLicenseId++, uuid, uploaded_at: new Date().toISOString(), claims };
    state.licenses.push({ jwt, license });
    refreshEntitlements(state);
    return { status: 201, body: license };
  }),

  // coder/coder v2.26.1 enterprise/coderd/licenses.go licenses: a nil slice when none, so JSON null.
  listLicenses: enterpriseRoute(({ state }) => {
    const licenses = state.licenses.map((stored) => stored.license);
    return { status: 200, body: licenses.length ? licenses : null };
  }),

  // coder/coder v2.26.1 enterprise/coderd/licenses.go deleteLicense: any int32 parses (0 and negative ones too)
  // and names no license unless one has that id.
  deleteLicense: enterpriseRoute(({ state, params }) => {
    const index = state.licenses.findIndex((stored) => stored.license.id === params.id);
    if (index < 0) return { status: 404, body: { message: 'Unknown license ID' } };
    state.licenses.splice(index, 1);
    refreshEntitlements(state);
    return { status: 200 };
  }),

  // coder/coder v2.26.1 enterprise/coderd/coderd.go serveEntitlements, mounted without the API key middleware.
  getEntitlements: enterpriseRoute(({ state }) => ({ status: 200, body: state.entitlements })),

  ...aiProviderHandlers,
  ...mcpServerHandlers,
  ...aiGatewayKeyHandlers,
  ...workspaceProxyHandlers,
  ...provisionerKeyHandlers,
  // The one world of organizations, templates and workspaces (workspace-world.ts).
  ...workspaceHandlers,
  ...templateHandlers,
};

/** What Coder recomputes after a license change that the double models: has_license and trial. */
function refreshEntitlements(state: CoderApiDoubleState): void {
  const newest = state.licenses.at(-1);
  state.entitlements.has_license = newest !== undefined;
  state.entitlements.trial = newest?.license.claims.trial === true;
  state.entitlements.refreshed_at = new Date().toISOString();
}
