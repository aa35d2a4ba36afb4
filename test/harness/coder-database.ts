// A fresh database holding the fixture of Coder's tables (coder-schema.sql) and its default organization.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import type { Postgres } from './postgres.ts';

const schemaFile = new URL('./coder-schema.sql', import.meta.url);

export interface CoderDatabaseOptions {
  /** How many organizations to create; the first is the default one, named "coder". Default 1. */
  organizations?: number;
}

export async function createCoderDatabase(postgres: Postgres, options: CoderDatabaseOptions = {}): Promise<string> {
  const organizations = options.organizations ?? 1;
  const url = await postgres.createDatabase('coder');
  const schema = await readFile(schemaFile, 'utf8');
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(schema);
    for (let i = 0; i < organizations; i++) {
      const name = i === 0 ? 'coder' : `org-${i}`;
      await db.query(
        `INSERT INTO organizations (id, name, display_name, description, created_at, updated_at, is_default)
         VALUES ($1, $2, $3, $4, now(), now(), $5)`,
        [randomUUID(), name, i === 0 ? 'Coder' : `Organization ${i}`, i === 0 ? 'Builtin default organization.' : '', i === 0],
      );
    }
  } finally {
    await db.end();
  }
  return url;
}
