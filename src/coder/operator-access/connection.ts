// One PostgreSQL connection per call, one transaction on it, every failure mapped to a safe error, and
// the connection always closed, also when the caller's signal aborts the call or its deadline passes.
import type pg from 'pg';
import { limitBackendMessages, limitUnavailable } from './backend-limits.ts';
import type { DatabaseEndpoint } from './database-url.ts';
import type { Queryable } from './queryable.ts';
import { OperatorAccessError } from './errors.ts';
import { deadlinePassed, toOperatorAccessError } from './pg-errors.ts';

export interface DatabaseTimeouts {
  /** From opening the socket to the server being ready for queries (TCP, TLS, authentication). */
  connectMs: number;
  /** Server-side limit on each statement, lock waits included. */
  statementMs: number;
  /**
   * The whole call: connecting, every statement and the commit. A server that answers each statement just
   * within its limits, or trickles bytes, would otherwise hold the call (and the reconcile) for minutes.
   */
  totalMs: number;
}

export const defaultTimeouts: DatabaseTimeouts = { connectMs: 10_000, statementMs: 10_000, totalMs: 40_000 };

/** How long end() may take before the socket is simply dropped (the server then rolls back). */
const closeGraceMs = 2_000;

export interface Transaction {
  /** Runs one named step; any error it throws becomes an OperatorAccessError naming the step. */
  step<T>(what: string, work: (db: Queryable) => Promise<T>): Promise<T>;
}

export interface TransactionOptions {
  timeouts: DatabaseTimeouts;
  /** Ends the call early: the connection is destroyed (the server rolls back) and the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

async function pgClient(config: pg.ClientConfig): Promise<pg.Client> {
  // Loaded on first use: an operator without operator access never connects to PostgreSQL.
  const { default: postgres } = await import('pg');
  return new postgres.Client(config);
}

export async function inTransaction<T>(
  endpoint: DatabaseEndpoint,
  { timeouts, signal }: TransactionOptions,
  work: (tx: Transaction) => Promise<T>,
  /** Tests only: a client whose internals differ from the installed pg's. */
  makeClient: (config: pg.ClientConfig) => pg.Client | Promise<pg.Client> = pgClient,
): Promise<T> {
  signal?.throwIfAborted();
  const fail = (what: string, err: unknown) =>
    toOperatorAccessError(err, { step: what, connectTimeoutMs: timeouts.connectMs, statementTimeoutMs: timeouts.statementMs });
  // A config object, never a connection string: pg's parser would read files the URL names.
  const client = await makeClient({
    host: endpoint.host,
    port: endpoint.port,
    user: endpoint.user,
    // A function, so that pg never falls back to PGPASSWORD or a .pgpass file of the operator's own.
    password: async () => endpoint.password,
    database: endpoint.database ?? endpoint.user,
    ...(endpoint.ssl === undefined ? {} : { ssl: endpoint.ssl }),
    ...(endpoint.options === undefined ? {} : { options: endpoint.options }),
    ...(endpoint.sslnegotiation === undefined ? {} : { sslnegotiation: endpoint.sslnegotiation }),
    connectionTimeoutMillis: timeouts.connectMs,
    // A server that stops answering mid-query (a partition, not a slow statement) still ends the call.
    query_timeout: timeouts.statementMs + 5_000,
    application_name: 'coder-k8s-operator-access',
    keepAlive: true,
  } as pg.ClientConfig);
  // Before connecting, or not at all: without the limit one message from the server can exhaust the heap.
  const limit = limitBackendMessages(client);
  // A socket that drops after connect is also emitted as 'error'; the query in flight rejects with it
  // and is reported there, so the event itself needs no handling beyond not crashing the process.
  client.on('error', () => undefined);

  let current = 'connecting to PostgreSQL';
  let expired: OperatorAccessError | undefined;
  let onAbort: (() => void) | undefined;
  let deadline: NodeJS.Timeout | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onAbort = () => {
      destroy(client);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    deadline = setTimeout(() => {
      expired = deadlinePassed(current, timeouts.totalMs);
      destroy(client);
      reject(expired);
    }, timeouts.totalMs);
  });
  interrupted.catch(() => undefined);
  const orInterrupt = <R>(p: Promise<R>): Promise<R> => Promise.race([p, interrupted]);
  /** The error the call ends with when the caller or the deadline ended it, whatever the work threw then. */
  const interruption = () => (signal?.aborted ? signal.reason : expired);

  const step = async <R>(what: string, run: (db: Queryable) => Promise<R>): Promise<R> => {
    current = what;
    try {
      return await orInterrupt(run(client));
    } catch (err) {
      throw interruption() ?? fail(what, err);
    }
  };

  try {
    await step('connecting to PostgreSQL', async () => {
      await client.connect();
      if (!limit.installed()) throw limitUnavailable();
    });
    await step('starting a transaction', async (db) => {
      await db.query('BEGIN');
      // Set inside the transaction rather than as startup parameters, which PgBouncer refuses.
      await db.query(`SELECT set_config('statement_timeout', $1, true), set_config('idle_in_transaction_session_timeout', $2, true)`, [
        String(timeouts.statementMs),
        String(Math.max(60_000, 3 * timeouts.statementMs)),
      ]);
      // PostgreSQL 14 and later: a statement whose client is gone (an aborted call destroys its socket)
      // ends within a second instead of running, or waiting on a lock, to its timeout.
      await db.query(
        `SELECT set_config('client_connection_check_interval', '1000', true) WHERE current_setting('server_version_num')::int >= 140000`,
      );
    });
    try {
      const result = await orInterrupt(work({ step }));
      await step('committing the transaction', (db) => db.query('COMMIT'));
      return result;
    } catch (err) {
      const ended = interruption();
      if (ended !== undefined) throw ended;
      // Closing the connection below rolls back too; an explicit ROLLBACK is only worth it on a live one.
      if (!(err instanceof OperatorAccessError && err.reason === 'Unreachable')) {
        await client.query('ROLLBACK').catch(() => undefined);
      }
      throw err;
    }
  } finally {
    clearTimeout(deadline);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    await close(client);
  }
}

function destroy(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.();
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
  destroy(client);
}
