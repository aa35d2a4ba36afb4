// Which of the supported Coder releases' database shapes this database has, read from PostgreSQL's catalog
// before anything is written: the bootstrap writes Coder's tables directly, so it follows their columns.
import type { Queryable } from './queryable.ts';
import { OperatorAccessError } from './errors.ts';

/** The oldest Coder release whose database the bootstrap follows (the oldest the tests load: test/harness/versions.env). */
export const oldestSupportedRelease = 'v2.24.0';

/**
 * How api_keys holds a key's scope. Coder v2.24.0 to v2.26.x: one `scope` column of the enum api_key_scope,
 * whose full-access value is `all`. Coder v2.27.0 replaced it with `scopes` (an array of that enum, its
 * full-access value renamed `coder:all`) and `allow_list` (text[], `*:*` allows every resource; v2.30.0
 * added a check that it is not empty). Each release's coderd/database/dump.sql and migrations 000371, 000373
 * and 000389 show it.
 */
export type ApiKeyScopeColumns = 'scope' | 'scopes-and-allow-list';

export interface CoderSchema {
  apiKeyScope: ApiKeyScopeColumns;
}

/** The columns each table must have, whatever the release: the ones the bootstrap reads or writes. */
const requiredColumns: Record<string, string[]> = {
  users: [
    'id',
    'email',
    'username',
    'name',
    'hashed_password',
    'created_at',
    'updated_at',
    'rbac_roles',
    'login_type',
    'status',
    'deleted',
    'is_system',
  ],
  organizations: ['id', 'deleted'],
  organization_members: ['organization_id', 'user_id', 'created_at', 'updated_at', 'roles'],
  api_keys: [
    'id',
    'hashed_secret',
    'user_id',
    'last_used',
    'expires_at',
    'created_at',
    'updated_at',
    'login_type',
    'lifetime_seconds',
    'ip_address',
    'token_name',
  ],
};

const supported =
  `the operator supports the databases of Coder ${oldestSupportedRelease} and later: check that the URL names Coder's own ` +
  'database and that Coder has started on it once (its migrations create the tables), and that Coder is not older than that';

function mismatch(what: string): OperatorAccessError {
  return new OperatorAccessError(
    'SchemaMismatch',
    `Coder's database schema differs from what the operator expects (${what}): ${supported}`,
  );
}

/**
 * Reads the columns of the four tables and the values of api_key_scope. Tables are resolved with
 * to_regclass, through the search_path, exactly as the bootstrap's unqualified statements resolve them.
 */
export async function readCoderSchema(db: Queryable): Promise<CoderSchema> {
  const tables = Object.keys(requiredColumns);
  const found = await db.query<{ table_name: string; column_name: string | null }>(
    `SELECT t.name AS table_name, a.attname AS column_name
       FROM unnest($1::text[]) AS t(name)
       LEFT JOIN pg_attribute a ON a.attrelid = to_regclass(t.name) AND a.attnum > 0 AND NOT a.attisdropped`,
    [tables],
  );
  const columns = new Map<string, Set<string>>();
  for (const row of found.rows) {
    if (!columns.has(row.table_name)) columns.set(row.table_name, new Set());
    if (row.column_name !== null) columns.get(row.table_name)!.add(row.column_name);
  }
  const missingTables = tables.filter((t) => columns.get(t)?.size === 0);
  if (missingTables.length > 0) throw mismatch(`no table ${missingTables.join(', ')}`);
  const missingColumns = tables.flatMap((t) => requiredColumns[t]!.filter((c) => !columns.get(t)!.has(c)).map((c) => `${t}.${c}`));
  if (missingColumns.length > 0) throw mismatch(`no column ${missingColumns.join(', ')}`);

  const keyColumns = columns.get('api_keys')!;
  const labels = new Set(
    (await db.query<{ label: string }>(`SELECT enumlabel AS label FROM pg_enum WHERE enumtypid = to_regtype('api_key_scope')`)).rows.map(
      (row) => row.label,
    ),
  );
  if (keyColumns.has('scopes') && keyColumns.has('allow_list')) {
    if (!labels.has('coder:all')) throw mismatch('api_keys.scopes exists but the enum api_key_scope has no value coder:all');
    return { apiKeyScope: 'scopes-and-allow-list' };
  }
  if (keyColumns.has('scope') && !keyColumns.has('scopes') && !keyColumns.has('allow_list')) {
    if (!labels.has('all')) throw mismatch('api_keys.scope exists but the enum api_key_scope has no value all');
    return { apiKeyScope: 'scope' };
  }
  const present = ['scope', 'scopes', 'allow_list'].filter((c) => keyColumns.has(c));
  throw mismatch(
    `api_keys has ${present.length === 0 ? 'none' : `only ${present.join(' and ')}`} of the columns scope (Coder v2.24 to v2.26) ` +
      'or scopes and allow_list (Coder v2.27 and later)',
  );
}
