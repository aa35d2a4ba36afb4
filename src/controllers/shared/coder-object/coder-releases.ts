// The Coder releases that version-dependent features need, in the one table that
// docs/reference/coder-versions.md repeats (test/unit/controllers/shared/coder-releases.test.ts compares
// the two). A release is named only where Coder's own source or documentation shows it; a feature that no
// release checked here has (through newestCheckedCoderRelease) has no `since` and is refused on every
// release. Development builds (v0.0.0-devel) are not gated: the endpoint itself decides.
import { coderVersionAtLeast, parseCoderVersion } from './coder-version.ts';

/** The newest Coder release whose source this table was checked against. */
export const newestCheckedCoderRelease = 'v2.36.0';

/** The Coder release the test suite runs as a real server (CODER_VERSION in test/harness/versions.env). */
export const testedCoderRelease = 'v2.26.1';

export interface CoderFeatureGate {
  /** What needs the release, as conditions name it (`AI providers API`). */
  what: string;
  /** The first release shown to have it; undefined when no release checked has it. */
  since?: string;
  /** Where that comes from: a Coder source or documentation file, for the docs table. */
  evidence: string;
}

export const coderFeatureGates = {
  aiProviders: {
    what: 'AI providers API',
    since: 'v2.34.0',
    evidence:
      'coder/coder v2.36.0 docs/ai-coder/ai-gateway/providers.md (providers are stored in the database since v2.34); ' +
      'no /ai/providers route in v2.30.0 coderd/coderd.go',
  },
  aiProviderIcon: {
    what: 'provider icons',
    since: 'v2.36.0',
    evidence: "coder/coder v2.36.0 codersdk/aiproviders.go (AIProvider.Icon); Coder's API reference of v2.35.3 has no icon",
  },
  aiProviderUpstreamHeaders: {
    what: 'provider settings of type upstream-headers',
    evidence: 'coder/coder v2.36.0 codersdk/aiproviders.go: the settings decoder knows only bedrock and refuses any other _type',
  },
  aiGatewayKeys: {
    what: 'AI Gateway keys API',
    since: 'v2.36.0',
    evidence:
      'coder/coder v2.36.0 enterprise/coderd/coderd.go (/ai-gateway/keys) and docs/ai-coder/ai-gateway/standalone.md ' +
      '(standalone gateways need v2.36.0 or later); no such route in v2.30.0',
  },
  mcpServerConfigs: {
    what: 'MCP server configs API',
    since: 'v2.34.0',
    evidence:
      'coder/coder v2.36.0 coderd/coderd.go (/api/experimental/mcp/servers) and docs/install/releases/esr-2.29-2.34-upgrade.md ' +
      '(MCP server integration of Coder Agents is new in 2.34); v2.26.1 and v2.30.0 serve only /api/experimental/mcp/http',
  },
  mcpToolRules: {
    what: 'MCP tool rules',
    evidence:
      'coder/coder v2.36.0 codersdk/mcp.go: an MCP server config has tool allow and deny lists only; tool_default and ' +
      "tool_rules are in Coder's API reference after v2.36.0, on a route no release has",
  },
  mcpExternalAuth: {
    what: 'MCP servers with external-auth authentication',
    evidence: 'coder/coder v2.36.0 codersdk/mcp.go: auth_type is one of none, oauth2, api_key, custom_headers and user_oidc',
  },
  mcpUserSuppliedHeaders: {
    what: 'MCP custom headers that users supply',
    evidence: 'coder/coder v2.36.0 codersdk/mcp.go and coderd/database/dump.sql: no custom_headers_user_keys',
  },
} as const satisfies Record<string, CoderFeatureGate>;

export type CoderFeature = keyof typeof coderFeatureGates;

/**
 * Whether Coder `version` has `feature`: true or false for a release, undefined for a development build or a
 * version that does not parse (the endpoint decides).
 */
export function coderHasFeature(version: string | undefined, feature: CoderFeature): boolean | undefined {
  const gate: CoderFeatureGate = coderFeatureGates[feature];
  const running = parseCoderVersion(version);
  if (!running || (running.major === 0 && running.minor === 0 && running.patch === 0)) return undefined;
  if (!gate.since) return false;
  return coderVersionAtLeast(version, gate.since);
}

/** Why a release lacks `feature`, naming the release it needs (or that no release checked has it); no final stop. */
export function missingFeatureMessage(version: string, feature: CoderFeature): string {
  const gate: CoderFeatureGate = coderFeatureGates[feature];
  return gate.since
    ? `Coder ${version} has no ${gate.what}; it needs ${gate.since} or newer`
    : `Coder ${version} has no ${gate.what}; no Coder release up to ${newestCheckedCoderRelease} has them`;
}
