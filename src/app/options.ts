// The command line of `coder-k8s` (the operator), parsed and checked; errors name the flag and the fix.
import { parseArgs } from 'node:util';
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
  --metrics-bind-address=ADDR       Prometheus metrics (default :8080; 0 disables)
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
        'metrics-bind-address': { type: 'string', default: ':8080' },
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
  return {
    app: v.app as AppMode,
    kubeconfig: v.kubeconfig,
    watchNamespaces: [...new Set(v['watch-namespace']!.map((ns) => ns.trim()).filter(Boolean))],
    leaderElect: parseBool('leader-elect', v['leader-elect']!),
    leaderElectionNamespace: v['leader-election-namespace'],
    maxConcurrentReconciles: parsePositiveInt('max-concurrent-reconciles', v['max-concurrent-reconciles']!),
    metricsBindAddress: v['metrics-bind-address']!,
    healthProbeBindAddress: v['health-probe-bind-address']!,
    logLevel: v['log-level']!,
    gracefulShutdownTimeoutMs: parsePositiveInt('graceful-shutdown-timeout', v['graceful-shutdown-timeout']!) * 1000,
  };
}
