// The requests that make Coder hold a desired provider (pure): the create body, and the smallest update for
// a provider Coder has, or none when it matches. Keys and Bedrock credentials are write-only in Coder, so
// they are compared by the hashes in status and sent only when new or changed.
import type { CoderAIProviderStatus } from '../../../generated/types/coderaiprovider.ts';
import type { Schemas } from '../../coder/api-types.ts';
import { bedrockSecretFields, settingsMatch, type BedrockSecretField, type DesiredProvider } from './desired.ts';

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
  if ((existing.display_name ?? '') !== desired.display_name) patch.display_name = desired.display_name;
  if (existing.enabled !== desired.enabled) patch.enabled = desired.enabled;
  if (existing.base_url !== desired.base_url) patch.base_url = desired.base_url;
  if (desired.icon !== undefined && existing.icon !== desired.icon) patch.icon = desired.icon;

  const changedSecrets = changedBedrockSecrets(secrets, status?.appliedSecretHashes ?? {});
  if (
    !settingsMatch(desired.settings, existing.settings) ||
    (desired.settings?._type === 'bedrock' && Object.keys(changedSecrets).length)
  ) {
    patch.settings = withSecrets(desired.settings, changedSecrets);
  }

  const entries = keySet(existing, keys, status);
  const existingIds = (existing.api_keys ?? []).map((k) => k.id);
  const unchanged = entries.length === existingIds.length && entries.every((e, i) => 'id' in e && e.id === existingIds[i]);
  if (!unchanged) patch.api_keys = entries;
  return Object.keys(patch).length ? patch : undefined;
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

/** status.apiKeys from Coder's answer: Coder keeps the order it was given; a masked key ending otherwise is matched by its last characters. */
export function appliedKeys(provider: Schemas['AIProvider'], keys: KeyInput[]): NonNullable<CoderAIProviderStatus['apiKeys']> {
  const answered = provider.api_keys ?? [];
  const used = new Set<string>();
  return keys.map((key, i) => {
    const tail = key.value.slice(-4);
    const inOrder = answered[i];
    const match =
      inOrder && !used.has(inOrder.id) && inOrder.masked.endsWith(tail)
        ? inOrder
        : (answered.find((a) => !used.has(a.id) && a.masked.endsWith(tail)) ?? (inOrder && !used.has(inOrder.id) ? inOrder : undefined));
    if (match) used.add(match.id);
    return {
      secretName: key.secretName,
      secretKey: key.secretKey,
      ...(match ? { coderKeyID: match.id, masked: match.masked } : {}),
      hash: key.hash,
    };
  });
}
