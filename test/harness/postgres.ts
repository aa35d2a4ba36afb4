// A throw-away PostgreSQL cluster on a free loopback port, with password auth and a database per test.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.ts';
import { ManagedProcess, waitUntilReady } from './process.ts';
import { registerCleanup } from './shutdown.ts';

const run = promisify(execFile);

export interface Postgres {
  readonly port: number;
  /** The superuser's password; only ever in connection URLs handed to tests. */
  readonly password: string;
  /** postgresql://postgres:<password>@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  /** Creates an empty database (or, with `template`, a copy of that database) with a fresh name and returns its URL. */
  createDatabase(prefix?: string, options?: { template?: string }): Promise<string>;
  stop(): Promise<void>;
}

/** The directory of Debian's PostgreSQL server binaries (newest major), or CODER_K8S_PG_BIN. */
async function serverBinDir(): Promise<string> {
  if (process.env.CODER_K8S_PG_BIN) return process.env.CODER_K8S_PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? (await readdir(root)).filter((v) => /^\d+$/.test(v)).map(Number) : [];
  const newest = majors.sort((a, b) => b - a).find((v) => existsSync(join(root, String(v), 'bin', 'postgres')));
  if (newest === undefined) {
    throw new Error('postgres: no server found under /usr/lib/postgresql; install it with `apt-get install postgresql`');
  }
  return join(root, String(newest), 'bin');
}

/** PostgreSQL refuses to run as root: use the `postgres` system user then. */
async function serverIdentity(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    throw new Error('postgres: running as root needs the `postgres` system user (apt-get install postgresql creates it)');
  }
}

export async function startPostgres(): Promise<Postgres> {
  const bin = await serverBinDir();
  const identity = await serverIdentity();
  const keepDir = process.env.CODER_K8S_KEEP_HARNESS === '1';
  const dir = await mkdtemp(join(tmpdir(), 'coder-k8s-pg-'));
  const unregisterEarlyCleanup = registerCleanup(() => rm(dir, { recursive: true, force: true }));
  if (identity.uid !== undefined) await chown(dir, identity.uid, identity.gid!);
  const password = randomBytes(18).toString('base64url');
  const passwordFile = join(dir, 'pwfile');
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (identity.uid !== undefined) await chown(passwordFile, identity.uid, identity.gid!);
  const dataDir = join(dir, 'data');
  try {
    await run(
      join(bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '--auth=scram-sha-256',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C.UTF-8',
        '--no-sync',
      ],
      { ...identity },
    );
  } catch (err) {
    unregisterEarlyCleanup();
    await rm(dir, { recursive: true, force: true });
    throw new Error(`postgres: initdb failed: ${(err as { stderr?: string }).stderr?.trim() ?? (err as Error).message}`);
  }
  await rm(passwordFile);

  unregisterEarlyCleanup();
  const port = await freePort();
  const proc = new ManagedProcess({
    name: 'postgres',
    command: join(bin, 'postgres'),
    logFile: join(dir, 'postgres.log'),
    stopSignal: 'SIGINT', // fast shutdown: disconnect clients, no waiting
    ...identity,
    args: [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
    ],
  });
  const url = (database = 'postgres') => `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const stop = async () => {
    unregisterCleanup();
    await proc.stop();
    if (keepDir) console.error(`postgres stopped; kept (CODER_K8S_KEEP_HARNESS=1): ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  };
  const unregisterCleanup = registerCleanup(stop);
  try {
    await waitUntilReady(
      proc,
      `a query on 127.0.0.1:${port}`,
      async () => {
        const client = new pg.Client({ connectionString: url(), connectionTimeoutMillis: 1_000 });
        try {
          await client.connect();
          await client.query('SELECT 1');
          return true;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      30_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  let databases = 0;
  return {
    port,
    password,
    url,
    async createDatabase(prefix = 'test', options: { template?: string } = {}) {
      const name = `${prefix.replace(/[^a-z0-9_]/g, '_')}_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"${options.template ? ` TEMPLATE "${options.template.replace(/"/g, '""')}"` : ''}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stop,
  };
}
