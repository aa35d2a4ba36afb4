// CheckOperatorToken: read-only, whether a token is a live key of this name of the operator's own user.
// The controller uses it to recognise a token Secret an earlier version made (it lacks today's marks)
// by what no forger can put in one: a token that Coder's database holds for the operator.
import { liveTokenExpiry } from './api-key-rows.ts';
import { inTransaction, type DatabaseTimeouts } from './connection.ts';
import { parseDatabaseURL } from './database-url.ts';
import { requireDate, requireTokenName, resolveTimeouts } from './input.ts';
import { findOperatorUser, isOperatorCreated } from './operator-user.ts';

export interface CheckOperatorTokenInput {
  postgresURL: string;
  tokenName: string;
  token: string;
  signal?: AbortSignal | undefined;
  now?: Date;
  timeouts?: Partial<DatabaseTimeouts>;
}

export async function checkOperatorToken(input: CheckOperatorTokenInput): Promise<{ live: boolean }> {
  const endpoint = parseDatabaseURL(input.postgresURL);
  const tokenName = requireTokenName(input.tokenName);
  const now = requireDate(input.now);
  const timeouts = resolveTimeouts(input.timeouts);

  return inTransaction(endpoint, { timeouts, signal: input.signal }, async (tx) => {
    const user = await tx.step('finding the operator user', findOperatorUser);
    if (!user || !isOperatorCreated(user)) return { live: false };
    const expiry = await tx.step('checking the existing token', (db) =>
      liveTokenExpiry(db, { userId: user.id, tokenName }, input.token, { validUntil: now }),
    );
    return { live: expiry !== undefined };
  });
}
