// The provisioner key in Coder: the organization by name, keys by name, create (the only answer that
// carries the key material) and delete. Names are unique per organization and anyone with the right Coder
// role may make one, so a key is rotated or deleted only when its id is the one this provisioner recorded.
// Every call goes through the shared Coder client, so a redirect to another origin fails and the operator
// token never leaves its origin.
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import { CoderApiError } from '../../coder/errors.ts';

export interface KeyIdentity {
  organizationName: string;
  keyName: string;
}

/**
 * The organization holds a key of the wanted name that this provisioner did not create: someone else's,
 * which is left alone. Coder answers a second create of a name with 409 (enterprise/coderd/provisionerkeys.go
 * postProvisionerKey: "Provisioner key with name '…' already exists in organization").
 */
export class KeyNameTakenError extends Error {
  constructor(id: KeyIdentity, recordedID: string | undefined) {
    const recorded = recordedID ? `status.provisionerKeyID names another key` : 'this provisioner has recorded no status.provisionerKeyID';
    super(
      `Provisioner key "${id.keyName}" already exists in organization "${id.organizationName}" and this provisioner did not create it (${recorded}), so it is neither rotated nor deleted. Choose another spec.key.name, or delete that key in Coder (coder provisioner keys delete ${id.keyName} --org ${id.organizationName}) if nothing uses it.`,
    );
    this.name = 'KeyNameTakenError';
  }
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

async function listKeys(client: CoderClient, orgID: string, signal: AbortSignal | undefined) {
  const keys = await client.request('GET', '/api/v2/organizations/{organization}/provisionerkeys', {
    params: { organization: orgID },
    signal,
  });
  return keys ?? [];
}

/** Coder compares key names ignoring case (coderd/database/queries/provisionerkeys.sql GetProvisionerKeyByName). */
async function findKey(client: CoderClient, orgID: string, name: string, signal: AbortSignal | undefined) {
  const matches = (await listKeys(client, orgID, signal)).filter((k) => k.name.toLowerCase() === name.toLowerCase());
  if (matches.length > 1) throw new Error(`Coder holds ${matches.length} provisioner keys named "${name}"`);
  return matches[0];
}

/** Coder deletes by name only; the caller has just seen that this name is the recorded key's. */
async function deleteByName(client: CoderClient, orgID: string, name: string, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await client.request('DELETE', '/api/v2/organizations/{organization}/provisionerkeys/{provisionerKeyName}', {
      params: { organization: orgID, provisionerKeyName: name },
      signal,
    });
    return true;
  } catch (err) {
    if (isCoderNotFound(err)) return false;
    throw err;
  }
}

/**
 * A new key with these tags. Coder shows key material only once, so this provisioner's own key of that
 * name (`recordedID`; its material lost, or its tags outdated) is deleted and created again: a rotation.
 * A key of that name with any other id is someone else's: KeyNameTakenError, and nothing is changed.
 */
export async function createKey(
  client: CoderClient,
  id: KeyIdentity,
  tags: Record<string, string>,
  recordedID: string | undefined,
  signal?: AbortSignal,
): Promise<CreatedKey & { rotated: boolean }> {
  const orgID = await organizationID(client, id.organizationName, signal);
  const existing = await findKey(client, orgID, id.keyName, signal);
  if (existing && (!recordedID || existing.id !== recordedID)) throw new KeyNameTakenError(id, recordedID);
  if (existing) await deleteByName(client, orgID, existing.name, signal);
  let created;
  try {
    created = await client.request('POST', '/api/v2/organizations/{organization}/provisionerkeys', {
      params: { organization: orgID },
      body: { name: id.keyName, tags },
      signal,
    });
  } catch (err) {
    // Made by someone else between the list and the create.
    if (err instanceof CoderApiError && err.status === 409) throw new KeyNameTakenError(id, recordedID);
    throw err;
  }
  if (!created?.key) throw new Error(`Coder created provisioner key "${id.keyName}" but returned no key material`);
  const listed = await findKey(client, orgID, id.keyName, signal);
  if (!listed) throw new Error(`Coder does not list provisioner key "${id.keyName}" right after creating it`);
  return { organizationID: orgID, keyID: listed.id, keyName: listed.name, key: created.key, rotated: existing !== undefined };
}

/** Deletes the key with this id; its name, or undefined when it (or its organization) does not exist. */
export async function deleteRecordedKey(
  client: CoderClient,
  organizationName: string,
  keyID: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  let orgID: string;
  try {
    orgID = await organizationID(client, organizationName, signal);
  } catch (err) {
    if (isCoderNotFound(err)) return undefined;
    throw err;
  }
  const key = (await listKeys(client, orgID, signal)).find((k) => k.id === keyID);
  if (!key) return undefined;
  return (await deleteByName(client, orgID, key.name, signal)) ? key.name : undefined;
}
