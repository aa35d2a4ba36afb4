// RevokeOperatorToken: deletes the operator's API key of one name; the user and its memberships stay.
import { deleteTokens } from './api-key-rows.ts';
import { lockOperatorAccess } from './advisory-lock.ts';
import { inTransaction, type DatabaseTimeouts } from './connection.ts';
import { parseDatabaseURL } from './database-url.ts';
import { requireTokenName, resolveTimeouts } from './input.ts';
import { operatorUsername } from './operator-user.ts';

export interface RevokeOperatorTokenInput {
  postgresURL: string;
  tokenName: string;
  /** Aborts the call: the connection is destroyed, nothing is committed, the call rejects with the reason. */
  signal?: AbortSignal | undefined;
  timeouts?: Partial<DatabaseTimeouts>;
}

export async function revokeOperatorToken(input: RevokeOperatorTokenInput): Promise<{ deleted: number }> {
  const endpoint = parseDatabaseURL(input.postgresURL);
  const tokenName = requireTokenName(input.tokenName);
  const timeouts = resolveTimeouts(input.timeouts);

  return inTransaction(endpoint, { timeouts, signal: input.signal }, async (tx) => {
    await tx.step('waiting for another operator-access transaction', lockOperatorAccess);
    const deleted = await tx.step('deleting the operator token', (db) => deleteTokens(db, operatorUsername, tokenName));
    return { deleted };
  });
}
