// What Coder should hold for a CoderAIProvider (pure): the provider name, the non-secret fields with their
// defaults, the settings object, and the Secrets spec names. Fields that the running Coder does not accept
// are left out and named, so the rest is applied and Synced says which.
import type { CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import type { Schemas } from '../../coder/api-types.ts';
import { coderHasFeature, missingFeatureMessage } from '../shared/coder-object/coder-releases.ts';
import type { NamedCredentialRef } from '../shared/coder-object/credential-inputs.ts';
import { SpecError } from '../shared/spec-check.ts';

/** Bedrock settings without the write-only credentials: what Coder returns and what is compared. */
export interface VisibleBedrockSettings {
  _type: 'bedrock';
  _version: 1;
  region: string;
  model: string;
  small_fast_model: string;
  role_arn: string;
}
export interface UpstreamHeadersSettings {
  _type: 'upstream-headers';
  _version: 1;
  headers: Record<string, string>;
}
export type VisibleSettings = VisibleBedrockSettings | UpstreamHeadersSettings | null;

export interface DesiredProvider {
  name: string;
  type: Schemas['AIProviderType'];
  display_name: string;
  enabled: boolean;
  base_url: string;
  icon?: string;
  settings: VisibleSettings;
  /** Spec sets settings that this Coder does not accept (settings is null then, but not because spec has none). */
  settingsLeftOut?: true;
  /** Spec fields that this Coder does not accept and were left out, for Synced FieldUnsupported. */
  unsupported: string[];
}

/** The Secret fields of Bedrock settings, by the key of status.appliedSecretHashes. */
export const bedrockSecretFields = {
  'bedrock.accessKeyID': 'access_key',
  'bedrock.secretAccessKey': 'access_key_secret',
} as const;
export type BedrockSecretField = keyof typeof bedrockSecretFields;

export function providerName(p: CoderAIProvider): string {
  return p.spec.providerName ?? p.metadata.name ?? '';
}

/** The Secrets spec names, in spec order, with the documented default keys. */
export function credentialRefs(p: CoderAIProvider): NamedCredentialRef[] {
  const refs: NamedCredentialRef[] = (p.spec.apiKeys ?? []).map((k, i) => ({
    field: `apiKeys[${i}]`,
    ref: { name: k.secretKeyRef.name, key: k.secretKeyRef.key || 'api-key' },
  }));
  const bedrock = p.spec.bedrock;
  if (bedrock?.accessKeyIDSecretRef) {
    refs.push({
      field: 'bedrock.accessKeyID',
      ref: { name: bedrock.accessKeyIDSecretRef.name, key: bedrock.accessKeyIDSecretRef.key || 'access-key-id' },
    });
  }
  if (bedrock?.secretAccessKeySecretRef) {
    const ref = bedrock.secretAccessKeySecretRef;
    refs.push({ field: 'bedrock.secretAccessKey', ref: { name: ref.name, key: ref.key || 'secret-access-key' } });
  }
  return refs;
}

const defaultBaseURLs: Partial<Record<string, string>> = {
  openai: 'https://api.openai.com/v1/',
  anthropic: 'https://api.anthropic.com/',
  copilot: 'https://api.individual.githubcopilot.com',
};

export function baseURL(p: CoderAIProvider): string {
  if (p.spec.baseURL) return p.spec.baseURL;
  const byType = defaultBaseURLs[p.spec.type];
  if (byType) return byType;
  const region = p.spec.bedrock?.region;
  if (region) return `https://bedrock-runtime.${region}.amazonaws.com`;
  throw new SpecError(
    'spec.baseURL',
    `is required for type ${p.spec.type}; only openai, anthropic, copilot and bedrock with a region have a default`,
  );
}

/**
 * The provider as Coder should hold it, for a Coder of `version`. A field the release does not know is left
 * out and named (coder-releases.ts): Coder would drop an unknown icon silently and refuse an unknown settings
 * type with 400, so sending either would never converge or block the whole provider.
 */
export function desiredProvider(p: CoderAIProvider, version: string | undefined): DesiredProvider {
  const has = (feature: 'aiProviderIcon' | 'aiProviderUpstreamHeaders') => coderHasFeature(version, feature) !== false;
  const lacks = (field: string, feature: 'aiProviderIcon' | 'aiProviderUpstreamHeaders') =>
    `${field} (${missingFeatureMessage(version ?? 'unknown', feature)})`;
  const unsupported: string[] = [];
  const desired: DesiredProvider = {
    name: providerName(p),
    type: p.spec.type,
    display_name: p.spec.displayName ?? '',
    enabled: p.spec.enabled ?? true,
    base_url: baseURL(p),
    settings: null,
    unsupported,
  };
  if (p.spec.icon !== undefined) {
    if (has('aiProviderIcon')) desired.icon = p.spec.icon;
    else unsupported.push(lacks('spec.icon', 'aiProviderIcon'));
  }
  const bedrock = p.spec.bedrock;
  const headers = p.spec.upstreamHeaders ?? [];
  if (bedrock) {
    desired.settings = {
      _type: 'bedrock',
      _version: 1,
      region: bedrock.region ?? '',
      model: bedrock.model ?? '',
      small_fast_model: bedrock.smallFastModel ?? '',
      role_arn: bedrock.roleARN ?? '',
    };
    if (headers.length) unsupported.push('spec.upstreamHeaders (Coder holds one settings object, and spec.bedrock uses it)');
  } else if (headers.length) {
    if (has('aiProviderUpstreamHeaders'))
      desired.settings = { _type: 'upstream-headers', _version: 1, headers: Object.fromEntries(headers.map((h) => [h.name, h.value])) };
    else {
      unsupported.push(lacks('spec.upstreamHeaders', 'aiProviderUpstreamHeaders'));
      desired.settingsLeftOut = true;
    }
  }
  return desired;
}

/** Whether Coder's settings already hold the visible part of `desired` (write-only fields are never returned). */
export function settingsMatch(desired: VisibleSettings, actual: Schemas['AIProvider']['settings']): boolean {
  if (desired === null) return actual === null || actual === undefined;
  if (!actual || actual._type !== desired._type) return false;
  if (desired._type === 'upstream-headers') {
    const have = ((actual as { headers?: Record<string, string> }).headers ?? {}) as Record<string, string>;
    const want = desired.headers;
    return Object.keys(have).length === Object.keys(want).length && Object.entries(want).every(([k, v]) => have[k] === v);
  }
  const have = actual as Partial<Record<string, unknown>>;
  return (['region', 'model', 'small_fast_model', 'role_arn'] as const).every((f) => (have[f] ?? '') === desired[f]);
}
