// `npm run bench:startup`: how long `coder-k8s --version` takes, and for a controller, from spawn to /readyz
// against a real API server (under its generated role), the time, the CPU it spent on the way and its resident
// memory once idle: started from the checkout with the image's Node.js flags, then (as root) as the image
// starts it: tini, the image's user, its files read-only with the compile cache the image build fills
// (test/harness/image-layout.ts).
// Figures, not a test. BENCH_NODE=<path> BENCH_BIN=<path> measure another Node.js or checkout (RUNS=5 by default).
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { buildImageLayout, imageLaunch } from '../harness/image-layout.ts';
import { imageNodeFlags, installOperatorRbac, startOperator, type OperatorLaunch } from '../harness/operator.ts';
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
    `${label.padEnd(48)} median ${fmt(median(values))}  min ${fmt(Math.min(...values))}  max ${fmt(Math.max(...values))}  (n=${values.length})`,
  );
}

/** The operator's process: `pid`, or when tini (the image's PID 1) runs it, tini's child. */
async function operatorPid(pid: number, underTini: boolean): Promise<number> {
  if (!underTini) return pid;
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(' ');
  if (children.length !== 1 || !children[0])
    throw new Error(`tini (pid ${pid}) runs ${children.length} processes, expected the operator alone`);
  return Number(children[0]);
}

/** `runs` controllers started one after another with `launch`, each to /readyz, then idle, then stopped. */
async function measureStarts(label: string, cp: ControlPlane, kubeconfig: string, launch: OperatorLaunch): Promise<void> {
  const underTini = launch.command.endsWith('/tini');
  const readyTimes: number[] = [];
  const readyCpu: number[] = [];
  const idleRss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const op = await startOperator(cp, kubeconfig, { launch, args: ['--leader-elect=false'] });
    readyTimes.push((performance.now() - t0) / 1000);
    const pid = await operatorPid(op.process.pid!, underTini);
    const tiniCpu = underTini ? ((await cpuSeconds(op.process.pid!)) ?? NaN) : 0;
    readyCpu.push(((await cpuSeconds(pid)) ?? NaN) + tiniCpu);
    await new Promise((r) => setTimeout(r, idleMs));
    idleRss.push(await rssMiB(pid));
    await op.process.stop();
  }
  report(`${label}: spawn to /readyz`, readyTimes, 's', 2);
  report(`${label}: CPU spent by /readyz`, readyCpu, 's', 2);
  report(`${label}: RSS after ${idleMs / 1000} s idle`, idleRss, 'MiB', 0);
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
  await measureStarts('controller from the checkout', cp, kubeconfig, { command: node, args: [...imageNodeFlags, bin] });
  if (process.getuid?.() !== 0) {
    console.log("controller as the image starts it: skipped (starting it as the image's user needs root)");
  } else {
    const layout = await buildImageLayout(process.cwd());
    try {
      const readable = join(layout.unwritableDir, 'operator.kubeconfig');
      await writeFile(readable, await readFile(kubeconfig, 'utf8'), { mode: 0o444 });
      await measureStarts('controller as the image starts it', cp, readable, imageLaunch(layout));
    } finally {
      await rm(layout.root, { recursive: true, force: true });
    }
  }
} finally {
  await cp.stop();
}
