// The in-memory Coder behind the API double: build info, users and their tokens, licenses and
// entitlements, seeded with what a fresh Enterprise deployment and its operator user look like.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import { emptyWorkspaceWorld, type WorkspaceWorld } from './workspace-world.ts';

type Schemas = components['schemas'];

export interface StoredLicense {
  /** The JWT as uploaded; Coder never returns it, and neither does the double. */
  jwt: string;
  license: Schemas['License'];
}

/** An AI provider as Coder stores it: the plaintext keys and write-only Bedrock credentials never leave the double. */
export interface StoredAIProvider {
  provider: Schemas['AIProvider'];
  keys: { id: string; value: string; created_at: string }[];
  bedrockSecrets: { access_key?: string; access_key_secret?: string };
  /** Coder deletes softly: the row stays for audit and is never listed again. */
  deleted: boolean;
}

/** An MCP server config as Coder stores it: the write-only values never leave the double. */
export interface StoredMCPServer {
  config: Schemas['MCPServerConfig'];
  secrets: { oauth2_client_secret?: string; api_key_value?: string; custom_headers?: Record<string, string> };
}

export interface MCPApiShape {
  /** Serve /api/experimental/mcp/servers (on a release from the one coder-releases.ts names); false: 404, as a build without it. */
  experimentalPath: boolean;
  /** Experiments /api/experimental/mcp requires that are off, answered 403 as v2.26.1 does (oauth2, mcp-server-http). */
  experimentsOff: string[];
}

/** An AI Gateway key; Coder keeps only a hash of the key, the double keeps the key to compare with what the operator wrote. */
export interface StoredAIGatewayKey {
  key: Schemas['AIGatewayKey'];
  value: string;
}

/** A registered workspace proxy and the session token Coder issued it last (older ones stop working). */
export interface StoredWorkspaceProxy {
  proxy: Schemas['WorkspaceProxy'];
  token: string;
}

export interface CoderApiDoubleState {
  buildInfo: Schemas['BuildInfoResponse'];
  users: Schemas['User'][];
  /** Session tokens and the id of the user each one belongs to. */
  tokens: Map<string, string>;
  licenses: StoredLicense[];
  nextLicenseId: number;
  entitlements: Schemas['Entitlements'];
  /** false: an AGPL build of Coder, whose /api/v2 has none of the enterprise routes (licenses, entitlements, provisioner keys, workspace proxies, AI Gateway keys): 404. */
  enterprise: boolean;
  /** AI providers, deleted ones included (served from v2.34). */
  aiProviders: StoredAIProvider[];
  /** config.ai.bridge.enabled of GET /api/v2/deployment/config. */
  aiGatewayEnabled: boolean;
  /** MCP server configs (mcp-server-handlers.ts: the experimental path from v2.34). */
  mcpServers: StoredMCPServer[];
  /** How this Coder serves MCP server configs beyond what its version says. */
  mcpApi: MCPApiShape;
  /** AI Gateway keys (served from v2.36). */
  aiGatewayKeys: StoredAIGatewayKey[];
  /** Organizations and their members, templates, workspaces and builds: see workspace-world.ts. */
  world: WorkspaceWorld;
  /** Workspace proxies registered through the API, in order of creation. */
  workspaceProxies: StoredWorkspaceProxy[];
  /** The primary region's display name and icon (site config; coderd/database/queries/siteconfig.sql GetDefaultProxyConfig). */
  defaultProxy: { display_name: string; icon_url: string };
  /** Provisioner keys with their material, which Coder answers only once (on create). */
  provisionerKeys: StoredProvisionerKey[];
}

export interface StoredProvisionerKey {
  key: Schemas['ProvisionerKey'];
  material: string;
}

export const operatorUserId = '6f1c1b8e-6a43-4b9e-9d7e-0c0a5e3b2d11';

export function initialState(tokens: readonly string[]): CoderApiDoubleState {
  const now = new Date().toISOString();
  return {
    buildInfo: {
      external_url: 'https://github.com/coder/coder/commit/0000000',
      version: 'v2.30.0',
      dashboard_url: 'http://coder.example.com',
      telemetry: false,
      workspace_proxy: false,
      agent_api_version: '2.0',
      provisioner_api_version: '1.4',
      upgrade_message: '',
      deployment_id: '2f4c0c7e-9a1d-4d0e-8e53-7c8f7b1e9a10',
    },
    users: [
      {
        id: operatorUserId,
        username: 'coder-k8s-operator',
        name: 'coder-k8s operator',
        email: 'coder-k8s-operator@coder-k8s.invalid',
        created_at: now,
        updated_at: now,
        last_seen_at: now,
        status: 'active',
        login_type: 'none',
        organization_ids: [],
        roles: [{ name: 'owner', display_name: 'Owner' }],
      },
    ],
    tokens: new Map(tokens.map((token) => [token, operatorUserId])),
    licenses: [],
    nextLicenseId: 1,
    entitlements: {
      features: {
        external_provisioner_daemons: { entitlement: 'not_entitled', enabled: false },
        workspace_proxy: { entitlement: 'not_entitled', enabled: false },
        multiple_organizations: { entitlement: 'not_entitled', enabled: false },
        custom_roles: { entitlement: 'not_entitled', enabled: false },
      },
      warnings: [],
      errors: [],
      has_license: false,
      trial: false,
      require_telemetry: false,
      refreshed_at: now,
    },
    enterprise: true,
    aiProviders: [],
    aiGatewayEnabled: true,
    mcpServers: [],
    mcpApi: { experimentalPath: true, experimentsOff: [] },
    aiGatewayKeys: [],
    world: emptyWorkspaceWorld(),
    workspaceProxies: [],
    defaultProxy: { display_name: 'Default', icon_url: '/emojis/1f3e1.png' },
    provisionerKeys: [],
  };
}

/**
 * An unsigned license JWT with the given claims, for uploads to the double (which decodes the claims
 * but, unlike Coder, cannot check a signature).
 */
export function fakeLicenseJwt(claims: Record<string, unknown> = {}): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = {
    jti: randomUUID(),
    license_expires: Math.floor(Date.now() / 1000) + 365 * 24 * 3600,
    exp: Math.floor(Date.now() / 1000) + 365 * 24 * 3600,
    trial: false,
    all_features: true,
    features: {},
    ...claims,
  };
  return `${encode({ alg: 'EdDSA', typ: 'JWT', kid: '2022-08-12' })}.${encode(body)}.${Buffer.from('unsigned').toString('base64url')}`;
}

/** The claims of a JWT, without checking its signature; undefined when it is not a JWT. */
export function decodeJwtClaims(jwt: string): Record<string, unknown> | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return claims !== null && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
