// The requests that make Coder hold a desired provider (pure): the create body, and the smallest update for
// a provider Coder has, or none when it matches. Keys and Bedrock credentials are write-only in Coder, so
// they are compared by the hashes in status and sent only when new or changed. Compared as Coder answers
// (coder/coder v2.36.0 coderd/database/db2sdk AIProvider): the name stands in for an empty display name, and
// the keys come oldest first, those added in one request in the order of their random ids.
import type { CoderAIProviderStatus } from '../../../generated/types/coderaiprovider.ts';
import type { Schemas } from '../../coder/api-types.ts';
import { bedrockSecretFields, settingsMatch, type BedrockSecretField, type DesiredProvider } from './desired.ts';
import { coderKeyMask } from './key-mask.ts';

/** One spec.apiKeys entry with its value and hash, in spec order. */
export interface KeyInput {
  secretName: string;
  secretKey: string;
  value: string;
  hash: string;
}

/** The Bedrock credentials spec names, by status.appliedSecretHashes key. */
export type BedrockSecretInputs = Partial<Record<BedrockSecretField, { value: string; hash: string }>>;

export function createRequest(
  desired: DesiredProvider,
  keys: KeyInput[],
  secrets: BedrockSecretInputs,
): Schemas['CreateAIProviderRequest'] {
  return {
    type: desired.type,
    name: desired.name,
    display_name: desired.display_name,
    enabled: desired.enabled,
    base_url: desired.base_url,
    ...(desired.icon !== undefined ? { icon: desired.icon } : {}),
    api_keys: keys.map((k) => k.value),
    settings: withSecrets(desired.settings, allSecrets(secrets)),
  };
}

/** The update that makes `existing` match, or undefined when it does. */
export function updateRequest(
  existing: Schemas['AIProvider'],
  desired: DesiredProvider,
  keys: KeyInput[],
  secrets: BedrockSecretInputs,
  status: CoderAIProviderStatus | undefined,
): Schemas['UpdateAIProviderRequest'] | undefined {
  const patch: Schemas['UpdateAIProviderRequest'] = {};
  if (!displayNameMatches(existing, desired)) patch.display_name = desired.display_name;
  if (existing.enabled !== desired.enabled) patch.enabled = desired.enabled;
  if (existing.base_url !== desired.base_url) patch.base_url = desired.base_url;
  if (desired.icon !== undefined && existing.icon !== desired.icon) patch.icon = desired.icon;

  const changedSecrets = changedBedrockSecrets(secrets, status?.appliedSecretHashes ?? {});
  // Never settings null: Coder reads it as "not sent" (settingsConflict says so instead).
  if (
    desired.settings !== null &&
    (!settingsMatch(desired.settings, existing.settings) || (desired.settings._type === 'bedrock' && Object.keys(changedSecrets).length))
  ) {
    patch.settings = withSecrets(desired.settings, changedSecrets);
  }

  const entries = keySet(existing, keys, status);
  const existingIds = new Set((existing.api_keys ?? []).map((k) => k.id));
  // A set: Coder's order is not spec order, and it cannot be given one.
  const unchanged = entries.length === existingIds.size && entries.every((e) => 'id' in e && existingIds.has(e.id));
  if (!unchanged) patch.api_keys = entries;
  return Object.keys(patch).length ? patch : undefined;
}

/** Coder shows the provider name when the display name is empty (it stores NULL for ""). */
function displayNameMatches(existing: Schemas['AIProvider'], desired: DesiredProvider): boolean {
  const shown = existing.display_name ?? '';
  if (desired.display_name === '') return shown === '' || shown === desired.name;
  return shown === desired.display_name;
}

/**
 * The settings Coder holds that spec no longer has, which no update can remove: Coder decodes settings null
 * as a field not sent (coder/coder v2.36.0 codersdk/aiproviders.go UpdateAIProviderRequest.Settings is a
 * pointer), and any other value must carry a settings type. Undefined when there is none.
 */
export function settingsConflict(existing: Schemas['AIProvider'], desired: DesiredProvider): string | undefined {
  const held = existing.settings as { _type?: string } | null | undefined;
  if (desired.settings !== null || desired.settingsLeftOut || !held) return undefined;
  return held._type ?? 'unknown';
}

/** The whole key set in spec order: the id of a key whose value Coder already holds, else the new value. */
function keySet(
  existing: Schemas['AIProvider'],
  keys: KeyInput[],
  status: CoderAIProviderStatus | undefined,
): Schemas['AIProviderKeyUpdate'][] {
  const live = new Set((existing.api_keys ?? []).map((k) => k.id));
  const used = new Set<string>();
  return keys.map((key) => {
    const held = status?.apiKeys?.find((s) => s.hash === key.hash && s.coderKeyID && live.has(s.coderKeyID) && !used.has(s.coderKeyID));
    if (held?.coderKeyID) {
      used.add(held.coderKeyID);
      return { id: held.coderKeyID };
    }
    return { api_key: key.value };
  });
}

type SecretValues = Partial<Record<(typeof bedrockSecretFields)[BedrockSecretField], string>>;

function allSecrets(secrets: BedrockSecretInputs): SecretValues {
  const out: SecretValues = {};
  for (const [field, input] of Object.entries(secrets) as [BedrockSecretField, { value: string }][])
    out[bedrockSecretFields[field]] = input.value;
  return out;
}

/** New or changed credentials, and "" for one Coder holds that spec no longer names (Coder clears it). */
function changedBedrockSecrets(secrets: BedrockSecretInputs, applied: Record<string, string | undefined>): SecretValues {
  const out: SecretValues = {};
  for (const field of Object.keys(bedrockSecretFields) as BedrockSecretField[]) {
    const input = secrets[field];
    if (input && applied[field] !== input.hash) out[bedrockSecretFields[field]] = input.value;
    if (!input && applied[field]) out[bedrockSecretFields[field]] = '';
  }
  return out;
}

function withSecrets(settings: DesiredProvider['settings'], secrets: SecretValues): Schemas['AIProviderSettings'] {
  if (settings?._type !== 'bedrock') return settings as Schemas['AIProviderSettings'];
  return { ...settings, ...secrets } as Schemas['AIProviderSettings'];
}

/**
 * status.apiKeys from Coder's answer to a write that sent `entries` for `keys` (spec order; a create sends
 * every value): a key kept by id keeps it, a new key takes the new id whose mask is the one Coder gives
 * its value. Coder's order says nothing (keys added together are ordered by their random ids).
 */
export function appliedKeys(
  provider: Schemas['AIProvider'],
  keys: KeyInput[],
  entries: Schemas['AIProviderKeyUpdate'][] = keys.map((k) => ({ api_key: k.value })),
): NonNullable<CoderAIProviderStatus['apiKeys']> {
  const answered = provider.api_keys ?? [];
  const kept = new Set(entries.flatMap((e) => ('id' in e ? [e.id] : [])));
  const used = new Set<string>();
  return keys.map((key, i) => {
    const entry = entries[i];
    const mask = coderKeyMask(key.value);
    const match =
      entry && 'id' in entry
        ? answered.find((a) => a.id === entry.id)
        : answered.find((a) => !kept.has(a.id) && !used.has(a.id) && a.masked === mask);
    if (match) used.add(match.id);
    return {
      secretName: key.secretName,
      secretKey: key.secretKey,
      ...(match ? { coderKeyID: match.id, masked: match.masked } : {}),
      hash: key.hash,
    };
  });
}
