// A real Coder server on loopback: `coder server` as test/harness/build.sh builds it (CODER_VERSION in
// versions.env), on its own database in the harness PostgreSQL, running Coder's own migrations, with
// Coder's echo provisioner (templates import and workspaces build without Terraform) and nothing that
// reaches beyond the machine (no telemetry, update check or STUN). The first owner is made through the
// API, as a person setting Coder up would. Unlicensed: premium routes answer Coder's own 403.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaries, coderVersion } from './binaries.ts';
import { freePort } from './ports.ts';
import type { Postgres } from './postgres.ts';
import { ManagedProcess, waitUntilReady } from './process.ts';
import { registerCleanup } from './shutdown.ts';

export interface CoderAnswer<T = any> {
  status: number;
  headers: Headers;
  /** The parsed JSON body, else the text; undefined when empty. */
  body: T;
}

export interface CoderCallOptions {
  body?: unknown;
  /** A raw body (a template archive) sent with this content type. */
  raw?: { bytes: Uint8Array; contentType: string };
  /** Another user's session token; the first owner's by default. */
  token?: string;
  query?: Record<string, string>;
}

export interface RealCoder {
  /** http://127.0.0.1:<port>, also Coder's access URL. */
  readonly url: string;
  /** The release the server reports, for example v2.26.1. */
  readonly version: string;
  /** Coder's own database (its migrations ran there); the operator-access bootstrap writes into it. */
  readonly databaseURL: string;
  /** The first owner, made through POST /api/v2/users/first, and its session token. */
  readonly owner: { id: string; username: string; email: string; password: string; token: string };
  /** The default organization (named "coder" on a new deployment). */
  readonly organization: { id: string; name: string };
  readonly logFile: string;
  /** One call with the owner's token (or options.token), under Coder's default rate limit (512 a minute per IP and path). */
  api<T = any>(method: string, path: string, options?: CoderCallOptions): Promise<CoderAnswer<T>>;
  /** As api(), but any answer outside 2xx (304 included) throws, naming the call and Coder's message. */
  ok<T = any>(method: string, path: string, options?: CoderCallOptions): Promise<T>;
  /** The directory for processes the test starts against this server (agents). */
  readonly dir: string;
  /** Coder's own Prometheus metrics (coderd_api_requests_processed_total, ...); started with `prometheus: true` only. */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

const ownerPassword = 'Harness-owner-1!';

export interface RealCoderOptions {
  /** A release of CODER_VERSIONS; CODER_VERSION by default. */
  version?: string;
  experiments?: string[];
  extraArgs?: string[];
  /** Serve Coder's own Prometheus metrics, read with metrics(). */
  prometheus?: boolean;
}

export async function startRealCoder(postgres: Postgres, options: RealCoderOptions = {}): Promise<RealCoder> {
  const command = binaries.coder(options.version);
  const dir = await mkdtemp(join(tmpdir(), 'coder-k8s-coder-'));
  const unregisterEarlyCleanup = registerCleanup(() => rm(dir, { recursive: true, force: true }));
  // lib/pq, which Coder uses, asks for TLS unless told otherwise; the harness PostgreSQL serves none.
  const databaseURL = `${await postgres.createDatabase('realcoder')}?sslmode=disable`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const prometheusPort = options.prometheus ? await freePort() : undefined;
  const proc = new ManagedProcess({
    name: 'coder server',
    command,
    logFile: join(dir, 'coder.log'),
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      CODER_CONFIG_DIR: join(dir, 'config'),
      CODER_CACHE_DIRECTORY: join(dir, 'cache'),
    },
    args: [
      'server',
      `--postgres-url=${databaseURL}`,
      `--http-address=127.0.0.1:${port}`,
      `--access-url=${url}`,
      '--provisioner-types=echo',
      '--provisioner-daemons=2',
      '--telemetry=false',
      '--update-check=false',
      '--derp-server-stun-addresses=disable',
      ...(options.experiments?.length ? [`--experiments=${options.experiments.join(',')}`] : []),
      ...(prometheusPort ? ['--prometheus-enable', `--prometheus-address=127.0.0.1:${prometheusPort}`] : []),
      ...(options.extraArgs ?? []),
    ],
  });
  unregisterEarlyCleanup();
  const stop = async () => {
    unregisterCleanup();
    await proc.stop(10_000);
    if (process.env.CODER_K8S_KEEP_HARNESS === '1') console.error(`coder server stopped; kept (CODER_K8S_KEEP_HARNESS=1): ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  };
  const unregisterCleanup = registerCleanup(stop);

  const call = async (method: string, path: string, o: CoderCallOptions = {}, token?: string): Promise<CoderAnswer> => {
    const target = new URL(path, url);
    for (const [k, v] of Object.entries(o.query ?? {})) target.searchParams.set(k, v);
    const headers: Record<string, string> = { Accept: 'application/json' };
    const sessionToken = o.token ?? token;
    if (sessionToken) headers['Coder-Session-Token'] = sessionToken;
    let body: string | Uint8Array | undefined;
    if (o.raw) {
      body = o.raw.bytes;
      headers['Content-Type'] = o.raw.contentType;
    } else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(target, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    let parsed: unknown = text === '' ? undefined : text;
    try {
      if (text !== '') parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  const okOf =
    (token?: string) =>
    async (method: string, path: string, o: CoderCallOptions = {}): Promise<any> => {
      const answer = await call(method, path, o, token);
      if (answer.status < 200 || answer.status > 299) {
        throw new Error(`real Coder: ${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)?.slice(0, 600)}`);
      }
      return answer.body;
    };

  try {
    // Coder migrates its database before it listens; a cold start takes a few seconds.
    await waitUntilReady(proc, `GET ${url}/api/v2/buildinfo`, async () => (await call('GET', '/api/v2/buildinfo')).status === 200, 120_000);
    const buildinfo = (await call('GET', '/api/v2/buildinfo')).body as { version: string };
    const owner = { username: 'harness-owner', email: 'owner@harness.invalid', password: ownerPassword };
    const first = await okOf()('POST', '/api/v2/users/first', {
      body: { email: owner.email, username: owner.username, name: 'Harness Owner', password: owner.password, trial: false },
    });
    const login = await okOf()('POST', '/api/v2/users/login', { body: { email: owner.email, password: owner.password } });
    const token = login.session_token as string;
    const orgs = (await okOf(token)('GET', '/api/v2/organizations')) as { id: string; name: string; is_default: boolean }[];
    const org = orgs.find((o) => o.is_default) ?? orgs[0]!;
    return {
      url,
      version: buildinfo.version.replace(/\+.*$/, ''),
      databaseURL,
      owner: { ...owner, id: first.user_id as string, token },
      organization: { id: org.id, name: org.name },
      logFile: proc.logFile,
      dir,
      async metrics() {
        if (!prometheusPort) throw new Error('real Coder: started without prometheus: true, so it serves no metrics');
        const res = await fetch(`http://127.0.0.1:${prometheusPort}/`, { signal: AbortSignal.timeout(10_000) });
        if (!res.ok) throw new Error(`real Coder: its metrics answered ${res.status}`);
        return res.text();
      },
      api: (method, path, o) => call(method, path, o, token),
      ok: okOf(token),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The release the harness runs by default, for tests that name it (v2.26.1). */
export const realCoderVersion = coderVersion;
