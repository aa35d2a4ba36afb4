// The smallest update that makes an MCP server config in Coder match (pure): changed non-secret fields, and
// write-only values whose hash in status differs. When auth_type changes Coder clears the old type's
// fields, so the whole auth block, secrets included, is sent.
import type { Schemas } from '../../coder/api-types.ts';
import { secretFields, type DesiredMCPServer, type VisibleFields } from './desired.ts';

const authFields = [
  'auth_type',
  'oauth2_client_id',
  'oauth2_auth_url',
  'oauth2_token_url',
  'oauth2_scopes',
  'oauth2_revocation_url',
  'api_key_header',
] as const;

/** Empty strings, lists, maps, null and absent are one value: Coder fills some of them in and omits others. */
function normalized(value: unknown): string {
  if (value === undefined || value === null || value === '') return '';
  if (Array.isArray(value)) return value.length ? JSON.stringify(value) : '';
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return entries.length ? JSON.stringify(entries) : '';
  }
  return JSON.stringify(value);
}

export function updateRequest(
  existing: Schemas['MCPServerConfig'],
  desired: DesiredMCPServer,
  hashes: Map<string, string>,
  applied: Record<string, string | undefined> | undefined,
): Schemas['UpdateMCPServerConfigRequest'] | undefined {
  const patch: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(desired.fields) as [keyof VisibleFields, unknown][]) {
    if (normalized(existing[field as keyof typeof existing]) !== normalized(value)) patch[field] = value;
  }
  const authChanged = existing.auth_type !== desired.fields.auth_type;
  if (authChanged) for (const field of authFields) if (desired.fields[field] !== undefined) patch[field] = desired.fields[field];

  const changed = new Map<string, string>();
  const sameHeaderNames =
    [...desired.secrets.keys()]
      .filter((k) => k.startsWith('customHeaders.'))
      .sort()
      .join() ===
    Object.keys(applied ?? {})
      .filter((k) => k.startsWith('customHeaders.'))
      .sort()
      .join();
  for (const [field, value] of desired.secrets) {
    if (authChanged || applied?.[field] !== hashes.get(field)) changed.set(field, value);
  }
  // Coder replaces the header map whole: any change resends every header.
  if (!sameHeaderNames || [...changed.keys()].some((k) => k.startsWith('customHeaders.'))) {
    for (const [field, value] of desired.secrets) if (field.startsWith('customHeaders.')) changed.set(field, value);
    if (
      !sameHeaderNames &&
      ![...desired.secrets.keys()].some((k) => k.startsWith('customHeaders.')) &&
      desired.fields.auth_type === 'custom_headers'
    ) {
      patch.custom_headers = {};
    }
  }
  // A secret Coder says it does not hold (deleted or never stored) is sent again.
  if (desired.secrets.has('oauth2.clientSecret') && existing.has_oauth2_secret === false)
    changed.set('oauth2.clientSecret', desired.secrets.get('oauth2.clientSecret')!);
  if (desired.secrets.has('apiKey.value') && existing.has_api_key === false)
    changed.set('apiKey.value', desired.secrets.get('apiKey.value')!);
  Object.assign(patch, secretFields(changed));
  return Object.keys(patch).length ? (patch as Schemas['UpdateMCPServerConfigRequest']) : undefined;
}
