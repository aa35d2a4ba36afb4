// The command line of `coder-k8s` (the operator), parsed and checked; errors name the flag and the fix.
import { parseArgs } from 'node:util';
import { isLoopbackHost, parseBindAddress } from '../runtime/http-endpoint.ts';
import { UsageError } from './errors.ts';

export { UsageError };

export const appModes = ['all', 'controller', 'aggregated-apiserver', 'mcp-http'] as const;
export type AppMode = (typeof appModes)[number];

export interface OperatorOptions {
  app: AppMode;
  kubeconfig?: string;
  watchNamespaces: string[];
  leaderElect: boolean;
  leaderElectionNamespace?: string;
  maxConcurrentReconciles: number;
  metricsBindAddress: string;
  /** HTTPS, callers checked by TokenReview and SubjectAccessReview; false only on a loopback address. */
  metricsSecure: boolean;
  metricsCertDir?: string;
  healthProbeBindAddress: string;
  logLevel: string;
  gracefulShutdownTimeoutMs: number;
}

export const usage = `Usage: coder-k8s [flags]
       coder-k8s validate -f FILE [-f FILE...]

Runs the coder-k8s operator for Coder.

Flags:
  --app=MODE                        all (default), controller, aggregated-apiserver or mcp-http
  --kubeconfig=PATH                 kubeconfig file; default: $KUBECONFIG, then in-cluster
  --watch-namespace=NS              reconcile objects in NS only; repeat for several (default: all)
  --leader-elect=BOOL               elect a leader on a Lease before reconciling (default true)
  --leader-election-namespace=NS    namespace of the Lease (default: $POD_NAMESPACE, then the
                                    ServiceAccount's namespace)
  --max-concurrent-reconciles=N     reconciles at once per controller (default 1)
  --metrics-bind-address=ADDR       Prometheus metrics over HTTPS (default :8443; 0 disables)
  --metrics-secure=BOOL             serve metrics over HTTPS to callers allowed to get /metrics
                                    (default true; false is plain HTTP, on a loopback address only)
  --metrics-cert-dir=DIR            tls.crt and tls.key for metrics (default: self-signed at start)
  --health-probe-bind-address=ADDR  /healthz and /readyz (default :8081; 0 disables)
  --log-level=LEVEL                 trace, debug, info (default), warn or error
  --graceful-shutdown-timeout=SECS  how long SIGTERM waits for running reconciles (default 30)
  --version                         print the version
  --help                            print this help`;

function parseBool(flag: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${flag}=${value}: expected true or false`);
}

function parsePositiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag}=${value}: expected a whole number of at least 1`);
  return n;
}

export function parseOperatorArgs(args: string[]): OperatorOptions | 'help' | 'version' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      options: {
        app: { type: 'string', default: 'all' },
        kubeconfig: { type: 'string' },
        'watch-namespace': { type: 'string', multiple: true, default: [] },
        'leader-elect': { type: 'string', default: 'true' },
        'leader-election-namespace': { type: 'string' },
        'max-concurrent-reconciles': { type: 'string', default: '1' },
        'metrics-bind-address': { type: 'string', default: ':8443' },
        'metrics-secure': { type: 'string', default: 'true' },
        'metrics-cert-dir': { type: 'string' },
        'health-probe-bind-address': { type: 'string', default: ':8081' },
        'log-level': { type: 'string', default: 'info' },
        'graceful-shutdown-timeout': { type: 'string', default: '30' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
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
  const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
  if (!levels.includes(v['log-level']!)) throw new UsageError(`--log-level=${v['log-level']}: expected one of ${levels.join(', ')}`);
  const metricsSecure = parseBool('metrics-secure', v['metrics-secure']!);
  checkMetricsExposure(v['metrics-bind-address']!, metricsSecure);
  return {
    app: v.app as AppMode,
    kubeconfig: v.kubeconfig,
    watchNamespaces: [...new Set(v['watch-namespace']!.map((ns) => ns.trim()).filter(Boolean))],
    leaderElect: parseBool('leader-elect', v['leader-elect']!),
    leaderElectionNamespace: v['leader-election-namespace'],
    maxConcurrentReconciles: parsePositiveInt('max-concurrent-reconciles', v['max-concurrent-reconciles']!),
    metricsBindAddress: v['metrics-bind-address']!,
    metricsSecure,
    metricsCertDir: v['metrics-cert-dir'],
    healthProbeBindAddress: v['health-probe-bind-address']!,
    logLevel: v['log-level']!,
    gracefulShutdownTimeoutMs: parsePositiveInt('graceful-shutdown-timeout', v['graceful-shutdown-timeout']!) * 1000,
  };
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
