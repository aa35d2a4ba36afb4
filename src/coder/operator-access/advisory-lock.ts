// Serializes operator-access transactions on one database: two control planes reconciled at once would
// otherwise both find no operator user and both insert one, and the second would fail on the unique
// username. The lock is transaction-scoped, so it is released on commit, rollback or disconnect.
import type { Queryable } from './queryable.ts';
import { fnv1a64 } from './token-name.ts';

/** A fixed 64-bit key derived from our own name, so it cannot clash with Coder's numbered locks by design. */
export const operatorAccessLockKey = BigInt.asIntN(64, fnv1a64(new TextEncoder().encode('coder-k8s operator access')));

export async function lockOperatorAccess(db: Queryable): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1::bigint)', [operatorAccessLockKey.toString()]);
}
