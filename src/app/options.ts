// The command line of `coder-k8s` (the operator), parsed and checked; errors name the flag and the fix.
import type { ParseArgsOptionsConfig } from 'node:util';
import { util } from '../runtime/builtins.ts';
import { isLoopbackHost, parseBindAddress } from '../runtime/http-endpoint.ts';
import { defaultKubeApiBurst, defaultKubeApiQps } from '../runtime/request-budget.ts';
import { appModes, type AppMode } from './app-mode.ts';
import { withDoubleDash } from './go-flag-spelling.ts';
import { UsageError } from './errors.ts';
import { mcpFlags, mcpUsage, parseMcpOptions, type McpOptions } from './mcp-options.ts';

export { UsageError };

export interface OperatorOptions {
  app: AppMode;
  kubeconfig?: string;
  watchNamespaces: string[];
  leaderElect: boolean;
  leaderElectionNamespace?: string;
  maxConcurrentReconciles: number;
  /** Client-side request budget to the API server (client-go's --kube-api-qps and --kube-api-burst). */
  kubeApiQps: number;
  kubeApiBurst: number;
  /** Label selector on the reconciled kinds: this replica's shard; all objects when unset. */
  selector?: string;
  /** The leader Lease's name; one per shard. */
  leaderElectionId?: string;
  metricsBindAddress: string;
  /** HTTPS, callers checked by TokenReview and SubjectAccessReview; false only on a loopback address. */
  metricsSecure: boolean;
  metricsCertDir?: string;
  healthProbeBindAddress: string;
  logLevel: string;
  gracefulShutdownTimeoutMs: number;
  /** How often objects kept in Coder are compared with Coder and repaired. */
  coderResyncPeriodMs: number;
  /** Tests only: every control plane's Coder calls go to this loopback URL instead of its Service. */
  testOnlyCoderUrl?: string;
  /** --app=mcp-http only (src/app/mcp-options.ts). */
  mcp?: McpOptions;
  /** The aggregated API server (all, aggregated-apiserver): where it listens, and its Coder calls. */
  aggregated: AggregatedApiOptions;
}

export interface AggregatedApiOptions {
  bindAddress: string;
  securePort: number;
  /** --app=aggregated-apiserver only: the static Coder backend of the Go original's flags. */
  coderUrl?: string;
  coderSessionToken?: string;
  /** A file holding the session token instead, read again about once a minute (a mounted Secret). */
  coderSessionTokenFile?: string;
  coderNamespace?: string;
  coderRequestTimeoutMs: number;
  /** Requests served at once before 429 (reads; writes), as kube-apiserver's flags of the same names. */
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
}

/** Past this, the limits protect nothing: Coder and the API server see every request anyway. */
const maxInflightLimit = 100_000;

/** More reconciles at once than this only multiplies connections to Coder and PostgreSQL. */
const maxConcurrentReconcilesLimit = 100;
/**
 * Enough to keep the API server busy while some reconciles wait on it (its RBAC escalation check on a
 * workspace Role takes tens of milliseconds); never two of one object at once.
 */
export const defaultConcurrentReconciles = 10;
const maxKubeApiQps = 10_000;
/** A pod's terminationGracePeriodSeconds rarely exceeds this; longer would hold a lease for no use. */
const maxGracefulShutdownSeconds = 3600;
/** A day: drift in Coder repaired less often than that is not repaired. */
const maxCoderResyncSeconds = 86_400;

/** The values of --log-level, in the help and in its error alike. */
const logLevels = ['trace', 'debug', 'info', 'warn', 'error'] as const;
const defaultLogLevel = 'info';

/** "a, b (default), c or d" */
function choices(values: readonly string[], defaultValue: string): string {
  const shown = values.map((v) => (v === defaultValue ? `${v} (default)` : v));
  return `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}

export const usage = `Usage: coder-k8s [flags]
       coder-k8s validate -f FILE [FILE...] [-f FILE...]

Runs the coder-k8s operator for Coder.

Flags (each may also be written with one dash, as Go writes it: -app=controller):
  --app=MODE                        all (default), controller, aggregated-apiserver, mcp-http or
                                    mcp-stdio (MCP on stdin/stdout as the kubeconfig's user)
  --kubeconfig=PATH                 kubeconfig file; default: $KUBECONFIG, then in-cluster
  --watch-namespace=NS              reconcile objects in NS only; repeat for several (default: all)
  --leader-elect=BOOL               elect a leader on a Lease before reconciling (default true)
  --leader-election-namespace=NS    namespace of the Lease (default: $POD_NAMESPACE, then the
                                    ServiceAccount's namespace)
  --max-concurrent-reconciles=N     reconciles at once per controller, 1 to 100 (default ${defaultConcurrentReconciles})
  --kube-api-qps=N                  requests per second to the API server, sustained (default ${defaultKubeApiQps})
  --kube-api-burst=N                requests to the API server at once after a quiet spell (default ${defaultKubeApiBurst})
  --selector=LABELS                 reconcile only coder.com objects matching this label selector (a
                                    shard: run one operator per shard, each with its own
                                    --leader-election-id); default: all
  --leader-election-id=NAME         name of the leader Lease (default coder-k8s-controller.coder.com)
  --metrics-bind-address=ADDR       Prometheus metrics over HTTPS (default :8443; 0 disables)
  --metrics-secure=BOOL             serve metrics over HTTPS to callers allowed to get /metrics
                                    (default true; false is plain HTTP, on a loopback address only)
  --metrics-cert-dir=DIR            tls.crt and tls.key for metrics (default: self-signed at start)
  --health-probe-bind-address=ADDR  /healthz and /readyz (default :8081; 0 disables)
  --log-level=LEVEL                 ${choices(logLevels, defaultLogLevel)}
  --graceful-shutdown-timeout=SECS  how long SIGTERM waits for running reconciles, 1 to 3600 (default 30)
  --coder-resync-period=SECS        how often AI providers, MCP servers and AI Gateway keys are
                                    compared with Coder and repaired, 1 to 86400 (default 600)
${mcpUsage}
  --test-only-coder-url=URL         tests only: send every Coder API call to this loopback URL

Aggregated API server (--app=all and --app=aggregated-apiserver):
  --secure-port=PORT                HTTPS port of aggregation.coder.com (default 6443)
  --bind-address=IP                 address it listens on (default 0.0.0.0)
  --coder-request-timeout=DURATION  timeout of each Coder call, such as 30s or 1m (default 30s; 0 = 30s)
  --max-requests-inflight=N         reads served at once; more answer 429 (default 400)
  --max-mutating-requests-inflight=N  writes served at once; more answer 429 (default 200)
  --coder-url=URL                   aggregated-apiserver only: the Coder URL (http or https)
  --coder-session-token=TOKEN       aggregated-apiserver only: an owner session token for it
  --coder-session-token-file=PATH   aggregated-apiserver only: a file holding that token instead (kept
                                    out of the command line and the pod spec; read again each minute)
  --coder-namespace=NS              aggregated-apiserver only: the one namespace it serves
  --version                         print the version
  --help                            print this help`;

function parseBool(flag: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${flag}=${value}: expected true or false`);
}

function parseIntInRange(flag: string, value: string, max: number): number {
  const n = /^[0-9]+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new UsageError(`--${flag}=${value}: expected a whole number from 1 to ${max}`);
  return n;
}

/** Namespace names as given; an empty one is refused rather than read as "all namespaces". */
function parseWatchNamespaces(values: string[]): string[] {
  const namespaces = values.map((ns) => ns.trim());
  if (namespaces.some((ns) => ns === '')) {
    throw new UsageError('--watch-namespace is empty: name a namespace, or leave the flag out to watch all namespaces');
  }
  return [...new Set(namespaces)];
}

// Not "localhost": a hosts file can point a name anywhere.
const loopbackHosts = new Set(['[::1]']);

/** The URL, refused unless it is http(s) on a loopback host: the flag must not be able to send tokens off the machine. */
function parseTestOnlyCoderUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const loopback = url && (loopbackHosts.has(url.hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname));
  if (!url || !['http:', 'https:'].includes(url.protocol) || !loopback) {
    throw new UsageError(
      '--test-only-coder-url: expected an http(s) URL on a loopback address (127.0.0.1 or [::1]); the flag is for tests only',
    );
  }
  return value;
}

/** A label selector as given; the API server checks its syntax at startup (run-operator.ts). */
function parseSelector(value: string): string {
  const selector = value.trim();
  if (!selector)
    throw new UsageError('--selector is empty: give a label selector such as shard=a, or leave the flag out to reconcile all objects');
  return selector;
}

function parseLeaseName(value: string): string {
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(value)) {
    throw new UsageError(`--leader-election-id=${value}: expected a Lease name (lowercase letters, digits, '-' and '.')`);
  }
  return value;
}

/** The operator's flags, as parseArgs reads them. */
const operatorFlags = {
  app: { type: 'string', default: 'all' },
  kubeconfig: { type: 'string' },
  'watch-namespace': { type: 'string', multiple: true, default: [] },
  'leader-elect': { type: 'string', default: 'true' },
  'leader-election-namespace': { type: 'string' },
  'max-concurrent-reconciles': { type: 'string', default: String(defaultConcurrentReconciles) },
  'kube-api-qps': { type: 'string', default: String(defaultKubeApiQps) },
  'kube-api-burst': { type: 'string', default: String(defaultKubeApiBurst) },
  selector: { type: 'string' },
  'leader-election-id': { type: 'string' },
  'metrics-bind-address': { type: 'string', default: ':8443' },
  'metrics-secure': { type: 'string', default: 'true' },
  'metrics-cert-dir': { type: 'string' },
  'health-probe-bind-address': { type: 'string', default: ':8081' },
  'log-level': { type: 'string', default: defaultLogLevel },
  'graceful-shutdown-timeout': { type: 'string', default: '30' },
  'coder-resync-period': { type: 'string', default: '600' },
  'test-only-coder-url': { type: 'string' },
  ...mcpFlags,
  'secure-port': { type: 'string', default: '6443' },
  'max-requests-inflight': { type: 'string', default: '400' },
  'max-mutating-requests-inflight': { type: 'string', default: '200' },
  'bind-address': { type: 'string', default: '0.0.0.0' },
  'coder-url': { type: 'string', default: '' },
  'coder-session-token': { type: 'string', default: '' },
  'coder-session-token-file': { type: 'string', default: '' },
  'coder-namespace': { type: 'string', default: '' },
  'coder-request-timeout': { type: 'string', default: '30s' },
  version: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsOptionsConfig;

export function parseOperatorArgs(args: string[]): OperatorOptions | 'help' | 'version' {
  let parsed;
  try {
    parsed = util.parseArgs({
      args: withDoubleDash(args, operatorFlags),
      strict: true,
      options: operatorFlags,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (v.version) return 'version';
  if (!appModes.includes(v.app as AppMode)) {
    throw new UsageError(`--app=${v.app}: unknown mode; valid modes are ${appModes.join(', ')}`);
  }
  if (!(logLevels as readonly string[]).includes(v['log-level']!))
    throw new UsageError(`--log-level=${v['log-level']}: expected ${choices(logLevels, defaultLogLevel)}`);
  const metricsSecure = parseBool('metrics-secure', v['metrics-secure']!);
  checkMetricsExposure(v['metrics-bind-address']!, metricsSecure);
  const mcp = parseMcpOptions(v.app as AppMode, v);
  if (v['coder-session-token']!.trim() && v['coder-session-token-file']!.trim())
    throw new UsageError('--coder-session-token and --coder-session-token-file: give one of them, not both');
  return {
    app: v.app as AppMode,
    kubeconfig: v.kubeconfig,
    watchNamespaces: parseWatchNamespaces(v['watch-namespace']!),
    leaderElect: parseBool('leader-elect', v['leader-elect']!),
    leaderElectionNamespace: v['leader-election-namespace'],
    maxConcurrentReconciles: parseIntInRange('max-concurrent-reconciles', v['max-concurrent-reconciles']!, maxConcurrentReconcilesLimit),
    kubeApiQps: parseIntInRange('kube-api-qps', v['kube-api-qps']!, maxKubeApiQps),
    kubeApiBurst: parseIntInRange('kube-api-burst', v['kube-api-burst']!, maxKubeApiQps),
    ...(v.selector !== undefined ? { selector: parseSelector(v.selector) } : {}),
    ...(v['leader-election-id'] !== undefined ? { leaderElectionId: parseLeaseName(v['leader-election-id']) } : {}),
    metricsBindAddress: v['metrics-bind-address']!,
    metricsSecure,
    metricsCertDir: v['metrics-cert-dir'],
    healthProbeBindAddress: v['health-probe-bind-address']!,
    logLevel: v['log-level']!,
    gracefulShutdownTimeoutMs:
      parseIntInRange('graceful-shutdown-timeout', v['graceful-shutdown-timeout']!, maxGracefulShutdownSeconds) * 1000,
    coderResyncPeriodMs: parseIntInRange('coder-resync-period', v['coder-resync-period']!, maxCoderResyncSeconds) * 1000,
    ...(v['test-only-coder-url'] !== undefined ? { testOnlyCoderUrl: parseTestOnlyCoderUrl(v['test-only-coder-url']) } : {}),
    ...(mcp ? { mcp } : {}),
    aggregated: {
      bindAddress: v['bind-address']!,
      securePort: parseIntInRange('secure-port', v['secure-port']!, 65535),
      ...optional('coderUrl', parseCoderUrl(v['coder-url']!.trim())),
      ...optional('coderSessionToken', v['coder-session-token']!.trim()),
      ...optional('coderSessionTokenFile', v['coder-session-token-file']!.trim()),
      ...optional('coderNamespace', v['coder-namespace']!.trim()),
      coderRequestTimeoutMs: parseCoderRequestTimeout(v['coder-request-timeout']!),
      maxRequestsInflight: parseIntInRange('max-requests-inflight', v['max-requests-inflight']!, maxInflightLimit),
      maxMutatingRequestsInflight: parseIntInRange(
        'max-mutating-requests-inflight',
        v['max-mutating-requests-inflight']!,
        maxInflightLimit,
      ),
    },
  };
}

const optional = <K extends string>(key: K, value: string | undefined) => (value ? ({ [key]: value } as Record<K, string>) : {});

/** The Go original's rule: checked in every mode when given. */
function parseCoderUrl(value: string): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--coder-url: must include scheme and host (for example, https://coder.example.com)`);
  }
  if (!['http:', 'https:'].includes(url.protocol.toLowerCase())) throw new UsageError('--coder-url: scheme must be http or https');
  if (!url.hostname) throw new UsageError('--coder-url: must include scheme and host (for example, https://coder.example.com)');
  return value;
}

const durationUnits: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration ("30s", "1m30s", "500ms"); 0 means the default 30 s; negative is refused. */
export function parseCoderRequestTimeout(value: string): number {
  const text = value.trim();
  if (text.startsWith('-')) throw new UsageError(`--coder-request-timeout=${value}: must not be negative`);
  if (text === '0') return 30_000;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text)
    throw new UsageError(`--coder-request-timeout=${value}: expected a duration such as 30s, 1m or 1m30s`);
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * durationUnits[p[2]!]!, 0);
  return ms === 0 ? 30_000 : Math.ceil(ms);
}

/** Unauthenticated plain-HTTP metrics only where nothing but this machine can reach them. */
function checkMetricsExposure(address: string, secure: boolean): void {
  let bind;
  try {
    bind = parseBindAddress(address);
  } catch (err) {
    throw new UsageError(`--metrics-bind-address: ${(err as Error).message}`);
  }
  if (secure || !bind || isLoopbackHost(bind.host)) return;
  throw new UsageError(
    `--metrics-secure=false serves metrics without TLS or authentication, so it needs a loopback --metrics-bind-address ` +
      `(such as 127.0.0.1:8080), not "${address}"; keep --metrics-secure=true to serve them to the cluster`,
  );
}
