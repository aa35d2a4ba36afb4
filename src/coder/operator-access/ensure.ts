// EnsureOperatorToken: in one transaction, the operator user, its organization-admin memberships and a
// live API token named for the control plane, reusing the caller's token when it is still valid.
import { isLiveToken, replaceToken } from './api-key-rows.ts';
import { lockOperatorAccess } from './advisory-lock.ts';
import { inTransaction, type DatabaseTimeouts } from './connection.ts';
import { requireDate, requireLifetime, requirePostgresURL, requireTokenName, resolveTimeouts } from './input.ts';
import { ensureOrganizationAdmin } from './memberships.ts';
import { ensureOperatorUser } from './operator-user.ts';

export interface EnsureOperatorTokenInput {
  /** Coder's database; read fresh by the caller on every reconcile. Never logged or quoted. */
  postgresURL: string;
  /** The token the caller holds (from its Secret), if any. */
  existingToken?: string;
  /** From operatorTokenName(namespace, name). */
  tokenName: string;
  /** Lifetime of a newly issued token; the controller passes 365 days. */
  lifetimeSeconds: number;
  now?: Date;
  timeouts?: Partial<DatabaseTimeouts>;
}

export interface EnsureOperatorTokenResult {
  token: string;
  /** True when a new token was issued (the caller must store it); false when existingToken is valid. */
  rotated: boolean;
}

export async function ensureOperatorToken(input: EnsureOperatorTokenInput): Promise<EnsureOperatorTokenResult> {
  const postgresURL = requirePostgresURL(input.postgresURL);
  const tokenName = requireTokenName(input.tokenName);
  const lifetimeSeconds = requireLifetime(input.lifetimeSeconds);
  const now = requireDate(input.now);
  const timeouts = resolveTimeouts(input.timeouts);

  return inTransaction(postgresURL, timeouts, async (tx) => {
    await tx.step('waiting for another operator-access transaction', lockOperatorAccess);
    const userId = await tx.step('creating or updating the operator user', (db) => ensureOperatorUser(db, now));
    await tx.step('making the operator user organization-admin', (db) => ensureOrganizationAdmin(db, userId, now));
    const owner = { userId, tokenName };
    const existing = input.existingToken;
    if (existing && (await tx.step('checking the existing token', (db) => isLiveToken(db, owner, existing, now)))) {
      return { token: existing, rotated: false };
    }
    const token = await tx.step('issuing a new token', (db) => replaceToken(db, owner, lifetimeSeconds, now));
    return { token, rotated: true };
  });
}
