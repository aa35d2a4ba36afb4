// The parts of prom-client the operator uses, loaded without its index. The index loads every default metric
// at once, and its process CPU metric loads OpenTelemetry's API (51 modules, for exemplars the operator never
// records): about a tenth of the controllers' start-up. The process CPU counters are therefore made here, with
// the names and help texts prom-client gives them; the other default metrics are prom-client's own. The types
// are prom-client's declarations; the version is pinned by the lockfile, and
// test/unit/runtime/metrics.test.ts checks every default metric is still served.
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry: typeof PromClient.Registry = require('prom-client/lib/registry');
export const Counter: typeof PromClient.Counter = require('prom-client/lib/counter');
export const Gauge: typeof PromClient.Gauge = require('prom-client/lib/gauge');
export const Histogram: typeof PromClient.Histogram = require('prom-client/lib/histogram');
export type Registry = PromClient.Registry;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;

/** prom-client's default metrics but its process CPU one (lib/defaultMetrics.js lists them). */
const defaultMetricModules = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
];

type DefaultMetric = (register: Registry, config: { eventLoopMonitoringPrecision: number }) => void;

/** What prom-client's collectDefaultMetrics registers, with the same names. */
export function collectDefaultMetrics(register: Registry): void {
  for (const name of defaultMetricModules) {
    (require(`prom-client/lib/metrics/${name}`) as DefaultMetric)(register, { eventLoopMonitoringPrecision: 10 });
  }
  registerProcessCpu(register);
}

function registerProcessCpu(register: Registry): void {
  const registers = [register];
  let last = process.cpuUsage();
  // Registered first, so that a scrape runs its collect, which sets all three, before it reads the other two.
  new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
    collect() {
      const now = process.cpuUsage();
      const user = (now.user - last.user) / 1e6;
      const sys = (now.system - last.system) / 1e6;
      last = now;
      this.inc(user);
      system.inc(sys);
      total.inc(user + sys);
    },
  });
  const system = new Counter({ name: 'process_cpu_system_seconds_total', help: 'Total system CPU time spent in seconds.', registers });
  const total = new Counter({ name: 'process_cpu_seconds_total', help: 'Total user and system CPU time spent in seconds.', registers });
}
