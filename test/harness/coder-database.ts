// A fresh Coder database for suites that need one (the operator bootstraps its user there): a release's own
// schema and rows, the newest of the releases the tests load unless one is named (coder-release-database.ts).
import pg from 'pg';
import { createCoderReleaseDatabase, newestCoderRelease } from './coder-release-database.ts';
import type { Postgres } from './postgres.ts';

export interface CoderDatabaseOptions {
  /** How many live organizations; the first is the default one, named "coder". Default 1. */
  organizations?: number;
  /** The Coder release whose database it is; the newest the tests load by default. */
  release?: string;
}

export function createCoderDatabase(postgres: Postgres, options: CoderDatabaseOptions = {}): Promise<string> {
  return createCoderReleaseDatabase(postgres, options.release ?? newestCoderRelease, { organizations: options.organizations ?? 1 });
}

/** The rows of one statement on the database at `url`, on a connection of its own. */
export async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(sql)).rows;
  } finally {
    await db.end();
  }
}
