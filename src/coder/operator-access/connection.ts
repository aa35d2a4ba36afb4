// One PostgreSQL connection per call, one transaction on it, every failure mapped to a safe error, and
// the connection always closed.
import pg from 'pg';
import { OperatorAccessError } from './errors.ts';
import { toOperatorAccessError } from './pg-errors.ts';

export interface DatabaseTimeouts {
  /** From opening the socket to the server being ready for queries (TCP, TLS, authentication). */
  connectMs: number;
  /** Server-side limit on each statement, lock waits included. */
  statementMs: number;
}

export const defaultTimeouts: DatabaseTimeouts = { connectMs: 10_000, statementMs: 10_000 };

/** How long end() may take before the socket is simply dropped (the server then rolls back). */
const closeGraceMs = 2_000;

export type Queryable = Pick<pg.ClientBase, 'query'>;

export interface Transaction {
  /** Runs one named step; any error it throws becomes an OperatorAccessError naming the step. */
  step<T>(what: string, work: (db: Queryable) => Promise<T>): Promise<T>;
}

export async function inTransaction<T>(postgresURL: string, timeouts: DatabaseTimeouts, work: (tx: Transaction) => Promise<T>): Promise<T> {
  let client: pg.Client | undefined;
  const fail = (what: string, err: unknown) =>
    toOperatorAccessError(err, { step: what, connectTimeoutMs: timeouts.connectMs, statementTimeoutMs: timeouts.statementMs });
  const step = async <R>(what: string, run: (db: Queryable) => Promise<R>): Promise<R> => {
    try {
      return await run(client!);
    } catch (err) {
      throw fail(what, err);
    }
  };

  try {
    client = new pg.Client({
      connectionString: postgresURL,
      connectionTimeoutMillis: timeouts.connectMs,
      // A server that stops answering mid-query (a partition, not a slow statement) still ends the call.
      query_timeout: timeouts.statementMs + 5_000,
      application_name: 'coder-k8s-operator-access',
      keepAlive: true,
    });
  } catch (err) {
    throw fail('reading the database URL', err);
  }
  // A socket that drops after connect is also emitted as 'error'; the query in flight rejects with it
  // and is reported there, so the event itself needs no handling beyond not crashing the process.
  client.on('error', () => undefined);

  try {
    await step('connecting to PostgreSQL', (db) => (db as pg.Client).connect());
    await step('starting a transaction', async (db) => {
      await db.query('BEGIN');
      // Set inside the transaction rather than as startup parameters, which PgBouncer refuses.
      await db.query(`SELECT set_config('statement_timeout', $1, true), set_config('idle_in_transaction_session_timeout', $2, true)`, [
        String(timeouts.statementMs),
        String(Math.max(60_000, 3 * timeouts.statementMs)),
      ]);
    });
    try {
      const result = await work({ step });
      await step('committing the transaction', (db) => db.query('COMMIT'));
      return result;
    } catch (err) {
      // Closing the connection below rolls back too; an explicit ROLLBACK is only worth it on a live one.
      if (!(err instanceof OperatorAccessError && err.reason === 'Unreachable')) {
        await client.query('ROLLBACK').catch(() => undefined);
      }
      throw err;
    }
  } finally {
    await close(client);
  }
}

async function close(client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    client.end().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, closeGraceMs);
    }),
  ]);
  clearTimeout(timer);
  // end() waits for the server to close its side; a peer that never does would keep the socket open.
  (client as unknown as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.();
}
