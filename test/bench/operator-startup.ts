// `npm run bench:startup`: how long `coder-k8s --version` takes, how long a controller takes from spawn to
// /readyz against a real API server (under its generated role) and the CPU it spent on the way, and its
// resident memory once idle.
// Figures, not a test. BENCH_NODE=<path> BENCH_BIN=<path> measure another Node.js or checkout (RUNS=5 by default).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startControlPlane } from '../harness/control-plane.ts';
import { imageNodeFlags, installOperatorRbac, startOperator } from '../harness/operator.ts';
import { median } from './median.ts';
import { cpuSeconds } from './scale/component-cpu.ts';
import { rssMiB } from './scale/process-stats.ts';

const runs = Number(process.env.RUNS ?? 5);
const node = process.env.BENCH_NODE ?? process.execPath;
const bin = process.env.BENCH_BIN ?? 'bin/coder-k8s.js';
const idleMs = 10_000;

function report(label: string, values: number[], unit: string, digits: number): void {
  const fmt = (v: number) => `${v.toFixed(digits)} ${unit}`;
  console.log(
    `${label.padEnd(40)} median ${fmt(median(values))}  min ${fmt(Math.min(...values))}  max ${fmt(Math.max(...values))}  (n=${values.length})`,
  );
}

const { stdout: nodeVersion } = await promisify(execFile)(node, ['--version']);
console.log(`node ${nodeVersion.trim()} (${node}), ${bin}`);

const versionTimes: number[] = [];
for (let i = 0; i < runs * 2; i++) {
  const t0 = performance.now();
  await promisify(execFile)(node, [bin, '--version']);
  versionTimes.push(performance.now() - t0);
}
report('coder-k8s --version', versionTimes, 'ms', 0);

const cp = await startControlPlane();
try {
  const kubeconfig = await installOperatorRbac(cp);
  const readyTimes: number[] = [];
  const readyCpu: number[] = [];
  const idleRss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const op = await startOperator(cp, kubeconfig, {
      launch: { command: node, args: [...imageNodeFlags, bin] },
      args: ['--leader-elect=false'],
    });
    readyTimes.push((performance.now() - t0) / 1000);
    readyCpu.push((await cpuSeconds(op.process.pid!)) ?? NaN);
    await new Promise((r) => setTimeout(r, idleMs));
    idleRss.push(await rssMiB(op.process.pid!));
    await op.process.stop();
  }
  report('controller: spawn to /readyz', readyTimes, 's', 2);
  report('controller: CPU spent by /readyz', readyCpu, 's', 2);
  report(`controller: RSS after ${idleMs / 1000} s idle`, idleRss, 'MiB', 0);
} finally {
  await cp.stop();
}
