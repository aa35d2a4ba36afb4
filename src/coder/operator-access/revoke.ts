// RevokeOperatorToken: deletes the operator's API key of one name; the user and its memberships stay.
import { deleteTokens } from './api-key-rows.ts';
import { lockOperatorAccess } from './advisory-lock.ts';
import { inTransaction, type DatabaseTimeouts } from './connection.ts';
import { requirePostgresURL, requireTokenName, resolveTimeouts } from './input.ts';
import { operatorUsername } from './operator-user.ts';

export interface RevokeOperatorTokenInput {
  postgresURL: string;
  tokenName: string;
  timeouts?: Partial<DatabaseTimeouts>;
}

export async function revokeOperatorToken(input: RevokeOperatorTokenInput): Promise<{ deleted: number }> {
  const postgresURL = requirePostgresURL(input.postgresURL);
  const tokenName = requireTokenName(input.tokenName);
  const timeouts = resolveTimeouts(input.timeouts);

  return inTransaction(postgresURL, timeouts, async (tx) => {
    await tx.step('waiting for another operator-access transaction', lockOperatorAccess);
    const deleted = await tx.step('deleting the operator token', (db) => deleteTokens(db, operatorUsername, tokenName));
    return { deleted };
  });
}
