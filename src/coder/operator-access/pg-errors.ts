// Turns what pg, the socket or TLS threw into an OperatorAccessError with a fixed sentence. pg's own
// messages can quote host names, user names and row values, so they are read to classify, never copied.
import { BackendLimitExceeded } from './backend-limits.ts';
import { OperatorAccessError, type OperatorAccessReason } from './errors.ts';
import { oldestSupportedRelease } from './schema.ts';

export interface FailureContext {
  /** What the bootstrap was doing, as a gerund phrase: "creating the operator user". */
  step: string;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

interface Verdict {
  reason: OperatorAccessReason;
  what: string;
  todo: string;
}

const checkAddress = 'check that PostgreSQL is running and that the host and port in the database URL are right';
const checkTls = 'check the sslmode of the database URL and that the server certificate is trusted';
const checkSchema =
  "check that the URL names Coder's own database and that Coder has started on it once " +
  `(its migrations create the tables then); a Coder older than ${oldestSupportedRelease}, or much newer than the operator, also shows this`;
const willRetry = 'the operator retries on its own';
const checkServer =
  "check that the database URL names Coder's PostgreSQL (PostgreSQL answers the operator's statements in a few kilobytes)";

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function mebibytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}

/** The call's deadline (DatabaseTimeouts.totalMs) passed; the connection was destroyed. */
export function deadlinePassed(step: string, totalMs: number): OperatorAccessError {
  return new OperatorAccessError(
    'Unreachable',
    `the database server took longer than ${seconds(totalMs)} for the whole bootstrap (connecting, the statements and the commit) ` +
      `and was disconnected while ${step}: check that the database URL names Coder's PostgreSQL and that it is not overloaded; ${willRetry}`,
  );
}

function fromBackendLimit(err: BackendLimitExceeded): Verdict {
  const what =
    err.breach === 'message'
      ? `the database server sent a message longer than ${mebibytes(err.limitBytes)}, so the operator disconnected`
      : err.breach === 'connection'
        ? `the database server sent more than ${mebibytes(err.limitBytes)} on one connection, so the operator disconnected`
        : 'the database server sent a malformed message, so the operator disconnected';
  return { reason: 'Failed', what, todo: `${checkServer}; ${willRetry}` };
}

/** A code is copied into the message only if it looks like one (SQLSTATE, errno or OpenSSL name). */
function safeCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : undefined;
}

/** A constraint name comes from the schema, not from data, but is still checked to be an identifier. */
function safeConstraint(err: unknown): string | undefined {
  const name = (err as { constraint?: unknown } | null)?.constraint;
  return typeof name === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name) ? name : undefined;
}

function isSqlState(code: string | undefined, err: unknown): code is string {
  return code !== undefined && /^[0-9A-Z]{5}$/.test(code) && typeof (err as { severity?: unknown }).severity === 'string';
}

function fromSqlState(code: string, err: unknown, ctx: FailureContext): Verdict {
  const schema = (what: string): Verdict => ({
    reason: 'SchemaMismatch',
    what: `Coder's database schema differs from what the operator expects (${what})`,
    todo: checkSchema,
  });
  switch (code) {
    case '28P01':
      return {
        reason: 'AuthenticationFailed',
        what: 'PostgreSQL rejected the user name or password',
        todo: 'check the credentials in the database URL; if they were rotated, update the Secret',
      };
    case '3D000':
      return {
        reason: 'Invalid',
        what: 'the database named in the URL does not exist',
        todo: 'check the database name in the database URL',
      };
    case '42P01':
      return schema('a table is missing');
    case '42703':
      return schema('a column is missing');
    case '42704':
      return schema('a type or enum is missing');
    case '42883':
      return schema('a function or operator is missing');
    case '42P10':
      return schema('a unique index the operator relies on is missing');
    case '42804':
    case '42846':
      return schema('a column has another type');
    case '22P02':
      return schema('a value the operator writes is not accepted, for example an enum value such as coder:all');
    case '23502':
      return schema('a required column has no default');
    case '23514':
      return schema('a check constraint refused the row');
    case '42501':
      return {
        reason: 'Failed',
        what: "the database user lacks privileges on Coder's tables",
        todo: "use a database user that may read and write Coder's tables (Coder's own user does)",
      };
    case '23505': {
      const constraint = safeConstraint(err);
      return {
        reason: 'Failed',
        what: `a unique constraint${constraint ? ` (${constraint})` : ''} refused the write`,
        todo:
          'another Coder user may already hold the username or email of coder-k8s-operator, or another writer changed the same rows at once; ' +
          willRetry,
      };
    }
    case '23503':
      return { reason: 'Failed', what: 'a foreign key refused the write (a row was deleted concurrently)', todo: willRetry };
    case '57014':
      return {
        reason: 'Failed',
        what: `a statement ran longer than ${seconds(ctx.statementTimeoutMs)}`,
        todo: `the database may be overloaded or a lock held by another session; ${willRetry}`,
      };
    case '55P03':
      return { reason: 'Failed', what: 'a row or table lock could not be taken in time', todo: willRetry };
    case '40001':
    case '40P01':
      return { reason: 'Failed', what: 'the transaction conflicted with a concurrent one', todo: willRetry };
    case '25006':
      return { reason: 'Failed', what: 'the database is read-only', todo: 'point the database URL at the primary, not a standby' };
    case '53300':
      return {
        reason: 'Unreachable',
        what: 'PostgreSQL accepts no more connections',
        todo: `raise max_connections or free connections; ${willRetry}`,
      };
    case '57P01':
    case '57P02':
    case '57P03':
      return { reason: 'Unreachable', what: 'PostgreSQL is starting up or shutting down', todo: willRetry };
    case 'P0001':
      return {
        reason: 'Failed',
        what: "a trigger in Coder's database refused the write",
        todo: 'check that the coder-k8s-operator user is not being deleted',
      };
  }
  switch (code.slice(0, 2)) {
    case '28':
      return {
        reason: 'AuthenticationFailed',
        what: 'PostgreSQL does not let this user connect to this database from the operator (pg_hba.conf)',
        todo: "check the user in the database URL and the server's pg_hba.conf",
      };
    case '08':
      return { reason: 'Unreachable', what: 'the connection to PostgreSQL failed', todo: checkAddress };
    case '42':
      return schema('a statement does not fit the schema');
    case '53':
      return { reason: 'Failed', what: 'PostgreSQL is out of resources (disk, memory or connections)', todo: willRetry };
  }
  return { reason: 'Failed', what: 'PostgreSQL returned an error', todo: willRetry };
}

const systemErrors: Record<string, Omit<Verdict, 'reason'>> = {
  ECONNREFUSED: { what: 'PostgreSQL refused the connection', todo: checkAddress },
  ENOTFOUND: { what: 'the database host name does not resolve', todo: checkAddress },
  EAI_AGAIN: { what: 'the database host name could not be resolved now', todo: `${checkAddress}; ${willRetry}` },
  ETIMEDOUT: { what: 'the connection to PostgreSQL timed out', todo: checkAddress },
  EHOSTUNREACH: { what: 'the database host is unreachable from the operator', todo: `${checkAddress}, and network policies` },
  ENETUNREACH: { what: 'the database network is unreachable from the operator', todo: `${checkAddress}, and network policies` },
  ECONNRESET: { what: 'PostgreSQL closed the connection', todo: willRetry },
  EPIPE: { what: 'PostgreSQL closed the connection', todo: willRetry },
};

function fromPlainError(code: string | undefined, text: string, ctx: FailureContext): Verdict | undefined {
  if (code !== undefined && code in systemErrors) return { reason: 'Unreachable', ...systemErrors[code]! };
  if (code !== undefined && /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_)/.test(code)) {
    return { reason: 'Unreachable', what: 'the TLS handshake with PostgreSQL failed', todo: checkTls };
  }
  // pg's own errors carry no code; their wording is fixed in pg's source.
  if (/timeout expired|due to connection timeout/i.test(text)) {
    return { reason: 'Unreachable', what: `PostgreSQL did not answer within ${seconds(ctx.connectTimeoutMs)}`, todo: checkAddress };
  }
  if (/query read timeout/i.test(text)) {
    return { reason: 'Unreachable', what: 'PostgreSQL stopped answering', todo: willRetry };
  }
  if (/connection terminated/i.test(text)) {
    return { reason: 'Unreachable', what: 'PostgreSQL closed the connection', todo: willRetry };
  }
  if (/does not support ssl/i.test(text)) {
    return { reason: 'Unreachable', what: 'the database URL asks for TLS but PostgreSQL does not offer it', todo: checkTls };
  }
  if (/client password must be a string|password must be a string|SASL/i.test(text)) {
    return {
      reason: 'AuthenticationFailed',
      what: 'PostgreSQL asks for a password but the database URL has none',
      todo: 'put the password in the database URL',
    };
  }
  if (/invalid url|uri malformed/i.test(text)) {
    return {
      reason: 'Invalid',
      what: 'the database URL cannot be parsed',
      todo: 'check that the URL is a postgres:// URL with percent-encoded user name and password',
    };
  }
  return undefined;
}

export function toOperatorAccessError(err: unknown, ctx: FailureContext): OperatorAccessError {
  if (err instanceof OperatorAccessError) return err;
  if (err instanceof BackendLimitExceeded) {
    const verdict = fromBackendLimit(err);
    return new OperatorAccessError(verdict.reason, `${verdict.what} while ${ctx.step}: ${verdict.todo}`);
  }
  const code = safeCode(err);
  const text = err instanceof Error ? err.message : String(err);
  const verdict = isSqlState(code, err)
    ? fromSqlState(code, err, ctx)
    : (fromPlainError(code, text, ctx) ?? {
        reason: 'Failed' as const,
        what: `an unexpected ${err instanceof Error && /^[A-Za-z]{1,40}$/.test(err.name) ? err.name : 'error'} occurred`,
        todo: willRetry,
      });
  const shown = code ? ` (${isSqlState(code, err) ? 'SQLSTATE ' : ''}${code})` : '';
  return new OperatorAccessError(verdict.reason, `${verdict.what} while ${ctx.step}${shown}: ${verdict.todo}`, code);
}
