// EnsureOperatorToken: in one transaction, the operator user, its organization memberships and a live
// API token named for the control plane, reusing the caller's token when it is still valid. A new token
// is committed only after the caller has stored it, so a failed store leaves no live token behind.
import { liveTokenExpiry, replaceToken } from './api-key-rows.ts';
import { lockOperatorAccess } from './advisory-lock.ts';
import { inTransaction, type DatabaseTimeouts } from './connection.ts';
import { parseDatabaseURL } from './database-url.ts';
import { requireDate, requireLifetime, requireRenewal, requireTokenName, resolveTimeouts } from './input.ts';
import { ensureOrganizationMemberships } from './memberships.ts';
import { ensureOperatorUser } from './operator-user.ts';
import { requireRoles, type OperatorRoles } from './roles.ts';
import { readCoderSchema } from './schema.ts';

export interface EnsureOperatorTokenInput {
  /** Coder's database; read fresh by the caller on every reconcile. Never logged or quoted. */
  postgresURL: string;
  /** The token the caller holds (from its Secret), if any. */
  existingToken?: string | undefined;
  /**
   * The roles the operator user holds from this call on, written only where they differ. Default
   * ownerRoles, what every earlier version granted. The user is one per database: see the docs, "The
   * operator's Coder user".
   */
  roles?: OperatorRoles | undefined;
  /** From operatorTokenName(namespace, name). */
  tokenName: string;
  /** Lifetime of a newly issued token (the controller's reasoning: operator-access.ts). */
  lifetimeSeconds: number;
  /** An existing token that expires within this many seconds is replaced. Default 0: only expired ones are. */
  renewBeforeSeconds?: number | undefined;
  /**
   * Keeps a newly issued token (the controller writes its Secret). Called inside the transaction, before
   * the commit: if it throws, the token is rolled back and the error is rethrown as it is.
   */
  store?: ((token: string) => Promise<void>) | undefined;
  /** Aborts the call: the connection is destroyed, nothing is committed, the call rejects with the reason. */
  signal?: AbortSignal | undefined;
  now?: Date;
  timeouts?: Partial<DatabaseTimeouts>;
}

export interface EnsureOperatorTokenResult {
  token: string;
  /** True when a new token was issued (and stored, when store was given); false when existingToken is valid. */
  rotated: boolean;
  /**
   * When the token returned expires as the operator counts it: Coder's expires_at, but no later than its
   * issue plus lifetimeSeconds (Coder may push expires_at on as the token is used).
   */
  expiresAt: Date;
}

export async function ensureOperatorToken(input: EnsureOperatorTokenInput): Promise<EnsureOperatorTokenResult> {
  const endpoint = parseDatabaseURL(input.postgresURL);
  const tokenName = requireTokenName(input.tokenName);
  const lifetimeSeconds = requireLifetime(input.lifetimeSeconds);
  const now = requireDate(input.now);
  const renewBeforeSeconds = input.renewBeforeSeconds === undefined ? 0 : requireRenewal(input.renewBeforeSeconds, lifetimeSeconds);
  const timeouts = resolveTimeouts(input.timeouts);
  const roles = requireRoles(input.roles);

  return inTransaction(endpoint, { timeouts, signal: input.signal }, async (tx) => {
    await tx.step('waiting for another operator-access transaction', lockOperatorAccess);
    const schema = await tx.step("reading the schema of Coder's database", readCoderSchema);
    const userId = await tx.step('creating or updating the operator user', (db) => ensureOperatorUser(db, now, roles.site));
    await tx.step('making the operator user a member of every organization', (db) =>
      ensureOrganizationMemberships(db, userId, now, roles.organization),
    );
    const owner = { userId, tokenName };
    const existing = input.existingToken;
    const validUntil = new Date(now.getTime() + renewBeforeSeconds * 1000);
    // A token that outlives a fresh one (issued under a longer lifetime, say the Go original's year) is replaced
    // too, and so is one older than the lifetime, whatever Coder made of its expiry.
    const notAfter = new Date(now.getTime() + lifetimeSeconds * 1000);
    const expiry = existing
      ? await tx.step('checking the existing token', (db) =>
          liveTokenExpiry(db, owner, existing, { validUntil, notAfter, lifetimeSeconds }),
        )
      : undefined;
    if (existing && expiry) return { token: existing, rotated: false, expiresAt: expiry };
    const { token, expiresAt } = await tx.step('issuing a new token', (db) => replaceToken(db, owner, lifetimeSeconds, now, schema));
    await input.store?.(token);
    return { token, rotated: true, expiresAt };
  });
}
