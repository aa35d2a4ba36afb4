// A fresh database of one Coder release, made as Coder makes it: that release's own
// coderd/database/migrations (of the github.com/coder/coder/v2 module; harness:build keeps them under
// coder-sources/<release>/migrations) run in order in one transaction, as its migrator does (coderd/database/migrations/txnmigrator.go), and the
// migrator's version table. So the database holds the release's schema and the rows its migrations insert:
// the default organization "coder" (migrations 000198 and 000259; Coder's server does not create it), the
// Everyone group, the prebuilds system user and its membership, provisioner keys, notification templates,
// system roles. The release's coderd/database/dump.sql describes the same schema, but without those rows,
// and does not load as it is from v2.36.0 on (it keeps no SET lines of pg_dump, check_function_bodies among
// them, and a function there names a table made later). One template database per release and PostgreSQL;
// each call copies it.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { coderSource, coderSourceVersions } from './binaries.ts';
import type { Postgres } from './postgres.ts';

/** The releases the operator-access tests load, oldest first (CODER_SOURCE_VERSIONS in versions.env). */
export const coderReleases = coderSourceVersions;
/** The newest of them: the default for suites that only need a Coder database. */
export const newestCoderRelease = coderReleases[coderReleases.length - 1]!;

/** Whether `release` (vX.Y.Z) is `than` or newer. */
export function releaseAtLeast(release: string, than: string): boolean {
  const parse = (v: string) => v.replace(/^v/, '').split('.').map(Number);
  const [a, b] = [parse(release), parse(than)];
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
}

/** The release's migrations, in the order Coder runs them, with the number of the last (its schema version). */
async function migrations(release: string): Promise<{ files: string[]; version: number }> {
  const dir = coderSource(release, 'migrations');
  const names = (await readdir(dir)).filter((name) => /^\d+_.*\.up\.sql$/.test(name)).sort();
  if (names.length === 0) throw new Error(`no migrations in ${dir}`);
  return { files: names.map((name) => join(dir, name)), version: Number.parseInt(names[names.length - 1]!, 10) };
}

const templates = new WeakMap<Postgres, Map<string, Promise<string>>>();

function templateOf(postgres: Postgres, release: string): Promise<string> {
  let byRelease = templates.get(postgres);
  if (!byRelease) templates.set(postgres, (byRelease = new Map()));
  let template = byRelease.get(release);
  if (!template) {
    template = (async () => {
      const { files, version } = await migrations(release);
      const url = await postgres.createDatabase(`coder_${release.replace(/\W/g, '_')}_template`);
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        await db.query('BEGIN');
        for (const file of files) {
          try {
            await db.query(await readFile(file, 'utf8'));
          } catch (err) {
            throw new Error(`Coder ${release} migration ${file} failed: ${(err as Error).message}`);
          }
        }
        // What golang-migrate leaves: one row with the last version applied, not dirty.
        await db.query('CREATE TABLE schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL)');
        await db.query('INSERT INTO schema_migrations (version, dirty) VALUES ($1, false)', [version]);
        await db.query('COMMIT');
      } finally {
        await db.end();
      }
      return new URL(url).pathname.slice(1);
    })();
    byRelease.set(release, template);
  }
  return template;
}

export interface CoderReleaseDatabaseOptions {
  /**
   * How many live organizations: the default one ("coder", which the migrations made) and more beside it,
   * named org-1, org-2… (insertOrganization); 0 removes the default one too.
   * Default 1.
   */
  organizations?: number;
}

/** Creates a database of this release (see the file comment) and returns its superuser URL. */
export async function createCoderReleaseDatabase(
  postgres: Postgres,
  release: string,
  options: CoderReleaseDatabaseOptions = {},
): Promise<string> {
  const url = await postgres.createDatabase(`coder_${release.replace(/\W/g, '_')}`, { template: await templateOf(postgres, release) });
  const organizations = options.organizations ?? 1;
  if (organizations === 1) return url;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    if (organizations === 0) {
      // Only by hand: Coder's API never deletes its default organization.
      await db.query('DELETE FROM organizations');
    }
    for (let i = 1; i < organizations; i++) await insertOrganization(db, { name: `org-${i}` });
  } finally {
    await db.end();
  }
  return url;
}

/**
 * Adds an organization as Coder's InsertOrganization (coderd/database/queries/organizations.sql) writes it,
 * not the default one; from v2.36.0 with the default member roles Coder gives a new organization
 * (rbac.DefaultOrgMemberRoles: organization-workspace-access). `deleted` marks it deleted, as deleting it
 * through Coder's API does.
 */
export async function insertOrganization(db: pg.ClientBase, options: { name: string; deleted?: boolean }): Promise<string> {
  const defaultRoles = await db.query(
    `SELECT 1 FROM pg_attribute WHERE attrelid = 'organizations'::regclass AND attname = 'default_org_member_roles' AND NOT attisdropped`,
  );
  const [row] = (
    await db.query<{ id: string }>(
      `INSERT INTO organizations (id, name, display_name, description, icon, created_at, updated_at, is_default, deleted
                                  ${defaultRoles.rows.length ? ', default_org_member_roles' : ''})
       VALUES (gen_random_uuid(), $1, $1, '', '', now(), now(), false, $2 ${defaultRoles.rows.length ? `, '{organization-workspace-access}'` : ''})
       RETURNING id`,
      [options.name, options.deleted ?? false],
    )
  ).rows;
  return row!.id;
}

/**
 * A database holding only the release's coderd/database/dump.sql, to compare with the migrated one. Coder
 * writes the dump without pg_dump's SET lines; check_function_bodies = off, one of them, lets a function that
 * names a later table load (coder/coder v2.36.0 coderd/database/dbtestutil/db.go normalizeDump).
 */
export async function createCoderDumpDatabase(postgres: Postgres, release: string): Promise<string> {
  const url = await postgres.createDatabase(`coder_${release.replace(/\W/g, '_')}_dump`);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(`SET check_function_bodies = false; ${await readFile(coderSource(release, 'dump.sql'), 'utf8')}`);
  } finally {
    await db.end();
  }
  return url;
}

/** How these tables are defined: each column (type, null, default), constraint, index and trigger, sorted. */
export async function describeTables(url: string, tables: string[]): Promise<string[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ line: string }>(
      `SELECT c.relname || ' column ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
              || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
              || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') AS line
         FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
        WHERE c.oid = ANY (SELECT to_regclass(t) FROM unnest($1::text[]) AS t)
       UNION ALL
       SELECT conrelid::regclass || ' constraint ' || conname || ' ' || pg_get_constraintdef(oid)
         FROM pg_constraint WHERE conrelid = ANY (SELECT to_regclass(t) FROM unnest($1::text[]) AS t)
       UNION ALL
       SELECT indrelid::regclass || ' index ' || pg_get_indexdef(indexrelid)
         FROM pg_index WHERE indrelid = ANY (SELECT to_regclass(t) FROM unnest($1::text[]) AS t)
       UNION ALL
       SELECT tgrelid::regclass || ' trigger ' || pg_get_triggerdef(oid)
         FROM pg_trigger WHERE NOT tgisinternal AND tgrelid = ANY (SELECT to_regclass(t) FROM unnest($1::text[]) AS t)
       ORDER BY 1`,
      [tables],
    );
    return rows.map((row) => row.line);
  } finally {
    await db.end();
  }
}
