// What Coder should hold for a CoderMCPServer (pure): the slug, Coder's flat fields from spec (auth as
// auth_type plus that type's fields), the Secrets spec names, and the write-only values by the key of
// status.appliedSecretHashes. Only the fields of coder/coder v2.36.0 codersdk/mcp.go are sent; spec fields
// no release has (coder-releases.ts) are left out and named, so the rest is applied and Synced says which.
import type { CoderMCPServer } from '../../../generated/types/codermcpserver.ts';
import type { Schemas } from '../../coder/api-types.ts';
import { missingFeatureMessage, type CoderFeature } from '../shared/coder-object/coder-releases.ts';
import type { NamedCredentialRef } from '../shared/coder-object/credential-inputs.ts';

/** The one path of MCP server configs in a release (coder/coder v2.36.0 coderd/coderd.go). */
export const mcpServersPath = '/api/experimental/mcp/servers';

const authTypes = {
  none: 'none',
  oauth2: 'oauth2',
  apiKey: 'api_key',
  customHeaders: 'custom_headers',
  userOIDC: 'user_oidc',
  // No release has external_auth (coder-releases.ts): the server is registered without authentication.
  externalAuth: 'none',
} as const;

/** The non-secret fields Coder returns and the operator compares. */
export type VisibleFields = Omit<Schemas['CreateMCPServerConfigRequest'], 'oauth2_client_secret' | 'api_key_value' | 'custom_headers'>;

export interface DesiredMCPServer {
  fields: VisibleFields;
  /** Write-only values by appliedSecretHashes key: oauth2.clientSecret, apiKey.value, customHeaders.<name>. */
  secrets: Map<string, string>;
  unsupported: string[];
}

export function slugOf(s: CoderMCPServer): string {
  return s.spec.slug ?? s.metadata.name ?? '';
}

/** The Secrets spec.auth names, with the documented default keys. */
export function credentialRefs(s: CoderMCPServer): NamedCredentialRef[] {
  const auth = s.spec.auth;
  const refs: NamedCredentialRef[] = [];
  if (auth?.type === 'oauth2' && auth.oauth2?.clientSecretRef) {
    const ref = auth.oauth2.clientSecretRef;
    refs.push({ field: 'oauth2.clientSecret', ref: { name: ref.name, key: ref.key || 'client-secret' } });
  }
  if (auth?.type === 'apiKey' && auth.apiKey) {
    const ref = auth.apiKey.valueSecretRef;
    refs.push({ field: 'apiKey.value', ref: { name: ref.name, key: ref.key || 'api-key' } });
  }
  if (auth?.type === 'customHeaders') {
    for (const header of auth.customHeaders?.headers ?? []) {
      const ref = header.valueFrom?.secretKeyRef;
      if (ref) refs.push({ field: `customHeaders.${header.name}`, ref: { name: ref.name, key: ref.key || header.name.toLowerCase() } });
    }
  }
  return refs;
}

/**
 * What Coder of `version` should hold; `values` holds each credentialRefs field's value (credential-inputs.ts).
 * A spec field of a feature no release has is not sent, on any build, and is named: Coder drops an unknown
 * field without a word, so sending it would never converge.
 */
export function desiredMCPServer(s: CoderMCPServer, values: Map<string, string>, version: string | undefined): DesiredMCPServer {
  const spec = s.spec;
  const auth = spec.auth ?? { type: 'none' as const };
  const unsupported: string[] = [];
  const notSent = (field: string, feature: CoderFeature, set: boolean) => {
    if (set) unsupported.push(`${field} (${missingFeatureMessage(version ?? 'unknown', feature)})`);
  };
  const fields: VisibleFields = {
    display_name: spec.displayName,
    slug: slugOf(s),
    description: spec.description ?? '',
    // Coder takes only a deployment-relative path here; an unset icon is left out, not sent empty.
    ...(spec.iconURL ? { icon_url: spec.iconURL } : {}),
    url: spec.url,
    transport: spec.transport ?? 'streamable_http',
    auth_type: authTypes[auth.type ?? 'none'],
    tool_allow_list: spec.tools?.allow ?? [],
    tool_deny_list: spec.tools?.deny ?? [],
    availability: spec.availability ?? 'default_off',
    enabled: spec.enabled ?? true,
    model_intent: spec.modelIntent ?? false,
    forward_coder_headers: spec.forwardCoderHeaders ?? false,
  };
  // Only the fields of the chosen auth type: Coder clears the others when the type changes, and may fill
  // in its own defaults for them (api_key_header), which must not read as drift.
  if (auth.type === 'oauth2') {
    const oauth2 = auth.oauth2;
    Object.assign(fields, {
      oauth2_client_id: oauth2?.clientID ?? '',
      oauth2_auth_url: oauth2?.authURL ?? '',
      oauth2_token_url: oauth2?.tokenURL ?? '',
      oauth2_scopes: oauth2?.scopes ?? '',
    });
    if (oauth2?.revocationURL !== undefined) fields.oauth2_revocation_url = oauth2.revocationURL;
  }
  if (auth.type === 'apiKey') fields.api_key_header = auth.apiKey?.header ?? 'Authorization';
  const userKeys = auth.type === 'customHeaders' && (auth.customHeaders?.userSuppliedKeys?.length ?? 0) > 0;
  notSent('spec.auth.customHeaders.userSuppliedKeys', 'mcpUserSuppliedHeaders', userKeys);
  notSent('spec.auth.type externalAuth', 'mcpExternalAuth', auth.type === 'externalAuth');
  notSent('spec.tools.default', 'mcpToolRules', spec.tools?.default !== undefined);
  notSent('spec.tools.rules', 'mcpToolRules', (spec.tools?.rules?.length ?? 0) > 0);
  if (spec.allowInPlanMode !== undefined) fields.allow_in_plan_mode = spec.allowInPlanMode;

  const secrets = new Map<string, string>();
  if (values.has('oauth2.clientSecret')) secrets.set('oauth2.clientSecret', values.get('oauth2.clientSecret')!);
  if (values.has('apiKey.value')) secrets.set('apiKey.value', values.get('apiKey.value')!);
  if (auth.type === 'customHeaders') {
    for (const header of auth.customHeaders?.headers ?? []) {
      const value = header.valueFrom ? values.get(`customHeaders.${header.name}`) : header.value;
      if (value !== undefined) secrets.set(`customHeaders.${header.name}`, value);
    }
  }
  return { fields, secrets, unsupported };
}

/** The write-only fields of a request from the secret values (custom headers as one map, which Coder replaces whole). */
export function secretFields(
  secrets: Map<string, string>,
): Pick<Schemas['CreateMCPServerConfigRequest'], 'oauth2_client_secret' | 'api_key_value' | 'custom_headers'> {
  const out: Pick<Schemas['CreateMCPServerConfigRequest'], 'oauth2_client_secret' | 'api_key_value' | 'custom_headers'> = {};
  const headers: Record<string, string> = {};
  for (const [field, value] of secrets) {
    if (field === 'oauth2.clientSecret') out.oauth2_client_secret = value;
    else if (field === 'apiKey.value') out.api_key_value = value;
    else if (field.startsWith('customHeaders.')) headers[field.slice('customHeaders.'.length)] = value;
  }
  if (Object.keys(headers).length) out.custom_headers = headers;
  return out;
}
