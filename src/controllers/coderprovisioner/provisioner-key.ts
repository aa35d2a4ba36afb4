// The provisioner key in Coder (reference §2.7): the organization by name, keys by name, create (the
// only answer that carries the key material) and delete. Every call goes through the shared Coder
// client, so a redirect to another origin fails and the operator token never leaves its origin.
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import { CoderApiError } from '../../coder/errors.ts';

/** Asks Coder to skip its rate limit (owners only); Coder answers 428 to others, and the call is repeated without it. */
const bypassRateLimit = { 'X-Coder-Bypass-Ratelimit': 'true' } as const;

async function withBypass<T>(call: (headers: Record<string, string>) => Promise<T>): Promise<T> {
  try {
    return await call(bypassRateLimit);
  } catch (err) {
    if (err instanceof CoderApiError && err.status === 428) return call({});
    throw err;
  }
}

export interface KeyIdentity {
  organizationName: string;
  keyName: string;
}

export interface CreatedKey {
  organizationID: string;
  keyID: string;
  keyName: string;
  /** The key material, which Coder returns only now. */
  key: string;
}

async function organizationID(client: CoderClient, name: string, signal: AbortSignal | undefined): Promise<string> {
  const org = await client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: name }, signal });
  if (!org?.id) throw new Error(`Coder answered organization "${name}" without an id`);
  return org.id;
}

async function findKey(client: CoderClient, orgID: string, name: string, signal: AbortSignal | undefined) {
  const keys = await withBypass((headers) =>
    client.request('GET', '/api/v2/organizations/{organization}/provisionerkeys', { params: { organization: orgID }, headers, signal }),
  );
  const matches = (keys ?? []).filter((k) => k.name.toLowerCase() === name.toLowerCase());
  if (matches.length > 1) throw new Error(`Coder holds ${matches.length} provisioner keys named "${name}"`);
  return matches[0];
}

async function deleteByName(client: CoderClient, orgID: string, name: string, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await withBypass((headers) =>
      client.request('DELETE', '/api/v2/organizations/{organization}/provisionerkeys/{provisionerKeyName}', {
        params: { organization: orgID, provisionerKeyName: name },
        headers,
        signal,
      }),
    );
    return true;
  } catch (err) {
    if (isCoderNotFound(err)) return false;
    throw err;
  }
}

/**
 * A new key with these tags. Coder shows key material only once, so a key of that name that exists
 * already (its material lost, or its tags outdated) is deleted and created again: a rotation.
 */
export async function createKey(
  client: CoderClient,
  id: KeyIdentity,
  tags: Record<string, string>,
  signal?: AbortSignal,
): Promise<CreatedKey & { rotated: boolean }> {
  const orgID = await organizationID(client, id.organizationName, signal);
  const rotated = (await findKey(client, orgID, id.keyName, signal)) !== undefined;
  if (rotated) await deleteByName(client, orgID, id.keyName, signal);
  const created = await withBypass((headers) =>
    client.request('POST', '/api/v2/organizations/{organization}/provisionerkeys', {
      params: { organization: orgID },
      body: { name: id.keyName, tags },
      headers,
      signal,
    }),
  );
  if (!created?.key) throw new Error(`Coder created provisioner key "${id.keyName}" but returned no key material`);
  const listed = await findKey(client, orgID, id.keyName, signal);
  if (!listed) throw new Error(`Coder does not list provisioner key "${id.keyName}" right after creating it`);
  return { organizationID: orgID, keyID: listed.id, keyName: listed.name, key: created.key, rotated };
}

/** Deletes the key; false when it (or its organization) does not exist. */
export async function deleteKey(client: CoderClient, id: KeyIdentity, signal?: AbortSignal): Promise<boolean> {
  let orgID: string;
  try {
    orgID = await organizationID(client, id.organizationName, signal);
  } catch (err) {
    if (isCoderNotFound(err)) return false;
    throw err;
  }
  return deleteByName(client, orgID, id.keyName, signal);
}
