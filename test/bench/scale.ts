// `npm run bench:scale -- --n=1000 [--runs=K]`: the scale figures in one command (figures, not a test). Three
// runs, each on a fresh control plane with kwok, so that none starts with what another left behind:
// 1. the operator at its defaults takes N control planes (operator access off, over 4 namespaces) from create
//    to Ready; then 60 s of quiet; then 5,000 unrelated 16 KiB Secrets;
// 2. a plain client creates the same N objects, their Deployment and Service, and sets their status: what the
//    API server itself sustains here;
// 3. a plain client does the operator's own writes (its children, built by its builders, as its identity, and
//    one status write) as many at once as the operator's reconciles.
// --runs=K repeats the three, interleaved (operator, bare, operator's writes, operator, …), and prints each
// time and the minimum and median of each; the first round is reported in detail: the CPU every program of the
// machine spent (and what was idle or taken by the host), and from the audit log the API server's time by kind
// of write. The bench counts Ready from a watch, so that its own reads cost the API server little.
// QUIET_SECONDS, SECRETS and BARE_CONCURRENCY override the defaults (for a quick look, not for figures);
// BENCH_PROFILE_DIR profiles the API server and the operator (scale/profiles.ts); BENCH_NODE_FLAGS adds Node.js
// flags after the operator's (scale/operator-launch.ts).
import { KubeConfig } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { parseArgs, promisify } from 'node:util';
import { coderControlPlaneResource } from '../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { defaultConcurrentReconciles } from '../../src/app/options.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { KubeHttp } from '../../src/runtime/kube-http.ts';
import { builtinResources, collectionPath } from '../../src/runtime/resource.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { installOperatorRbac, startOperator } from '../harness/operator.ts';
import { byResource, operatorReads, operatorWrites, serverTimeByKind } from '../harness/operator-writes.ts';
import { parseSamples, type Sample } from '../harness/prometheus.ts';
import { bareClientRun, bareOperatorWorkRun, controlPlaneBody } from './scale/bare-client.ts';
import { startCoderCallCounter } from './scale/coder-call-counter.ts';
import { cpuBetween, cpuByProgram } from './scale/component-cpu.ts';
import { inParallel } from './scale/pool.ts';
import { heapPerObject } from './scale/cache-cost.ts';
import { watchMemoryPeak } from './scale/memory-at-peak.ts';
import { peakRssMiB, rssMiB } from './scale/process-stats.ts';
import { median as medianOf } from './median.ts';
import { deploymentToReady } from './scale/ready-latency.ts';
import { operatorLaunch, operatorNodeFlags } from './scale/operator-launch.ts';
import { profileApiServer, profiling } from './scale/profiles.ts';

const { values } = parseArgs({ options: { n: { type: 'string', default: '1000' }, runs: { type: 'string', default: '1' } }, strict: true });
const n = Number(values.n);
if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--n=${values.n}: expected a whole number above 0`);
const runs = Number(values.runs);
if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`--runs=${values.runs}: expected a whole number above 0`);
const quietSeconds = Number(process.env.QUIET_SECONDS ?? 60);
const unrelatedSecrets = Number(process.env.SECRETS ?? 5000);
const bareConcurrency = Number(process.env.BARE_CONCURRENCY ?? 32);
const namespaces = ['scale-0', 'scale-1', 'scale-2', 'scale-3'];
/** How many control planes the bench creates at once; the operator's baseline works as many at once as it reconciles. */
const createConcurrency = 50;
const reconcileConcurrency = defaultConcurrentReconciles;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const objects = Array.from({ length: n }, (_, i) => ({ namespace: namespaces[i % namespaces.length]!, name: `cp-${i}` }));

interface Cluster {
  cp: ControlPlane;
  admin: KubeHttp;
  /** The operator's kubeconfig: its ServiceAccount under the generated role. */
  kubeconfig: string;
  /** CPU by program: the control plane's processes, the bench, and the operator when given its pid. */
  cpu(operatorPid?: number): Promise<Map<string, number>>;
}

/** A fresh control plane with the CRDs, the operator's RBAC and the bench's namespaces; stopped when `run` ends. */
async function onFreshCluster<T>(run: (cluster: Cluster) => Promise<T>): Promise<T> {
  const cp = await startControlPlane({ kwok: true, profiling });
  try {
    const kubeconfig = await installOperatorRbac(cp);
    const admin = new KubeHttp(cp.adminConfig());
    for (const name of [...namespaces, 'unrelated'])
      await admin.json('POST', collectionPath(builtinResources.namespace), {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      });
    const cpu = (pid?: number) => cpuByProgram([cp.dir, `--listen-client-urls=${cp.etcdUrl}`], pid ? { operator: pid } : {});
    return await run({ cp, admin, kubeconfig, cpu });
  } finally {
    await cp.stop();
  }
}

/** How many control planes are Ready, from one watch of them all. */
async function watchReady(admin: KubeHttp): Promise<{ count(): number; stop(): Promise<void> }> {
  const informer = new Informer<CoderControlPlane>(admin, coderControlPlaneResource);
  informer.start();
  await informer.waitForSync();
  const ready = (o: CoderControlPlane) => o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  return { count: () => informer.list().filter(ready).length, stop: () => informer.stop() };
}

/** A time of one run, with the machine's state: its load at the start and the CPU the host took meanwhile. */
interface Timed {
  seconds: number;
  note: string;
}

async function timed(cpu: Cluster['cpu'], run: () => Promise<void>, pid?: number): Promise<Timed & { cpu: string }> {
  const load = loadavg()[0]!;
  const before = await cpu(pid);
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  const after = await cpu(pid);
  const stolen = (after.get('(stolen by the host)') ?? 0) - (before.get('(stolen by the host)') ?? 0);
  return {
    seconds,
    note: `load ${load.toFixed(2)} at its start, ${stolen.toFixed(1)} s of CPU taken by the host`,
    cpu: cpuBetween(before, after),
  };
}

const details: [string, string][] = [];
const detail = (label: string, value: string) => details.push([label, value]);

/** The operator's run; the first one also measures the quiet and the unrelated Secrets, and reports in detail. */
const operatorRun = (first: boolean) =>
  onFreshCluster(async ({ cp, admin, kubeconfig, cpu }): Promise<Timed> => {
    const coder = await startCoderCallCounter();
    try {
      // As the image runs it: every module already in Node's compile cache, so the TypeScript stripper never
      // loads. Filled under the operator's flags, as V8 uses only a cache filled under the same ones.
      await promisify(execFile)(process.execPath, [...operatorNodeFlags(), 'bin/fill-compile-cache.js']);
      const op = await startOperator(cp, kubeconfig, {
        args: ['--log-level=warn', `--test-only-coder-url=${coder.url}`],
        launch: operatorLaunch(),
      });
      const pid = op.process.pid!;
      const samples = async () => parseSamples(await (await fetch(op.metricsUrl)).text());
      const sum = (all: Sample[], matches: (s: Sample) => boolean) => all.filter(matches).reduce((a, s) => a + s.value, 0);
      const figures = (all: Sample[]) => ({
        reconciles: sum(all, (s) => s.name === 'controller_runtime_reconcile_total' && s.labels.controller === 'codercontrolplane'),
        requests: sum(all, (s) => s.name === 'rest_client_requests_total'),
        conflicts: sum(all, (s) => s.name === 'rest_client_requests_total' && s.labels.code === '409'),
        throttled: sum(all, (s) => s.name === 'rest_client_requests_total' && s.labels.code === '429'),
        cpu: sum(all, (s) => s.name === 'process_cpu_seconds_total'),
      });
      const ready = await watchReady(admin);
      await sleep(10_000);
      const idleRss = await rssMiB(pid);

      const memory = watchMemoryPeak(pid, op.metricsUrl);
      const before = figures(await samples());
      const started = new Date();
      const profile = first ? profileApiServer(admin, 'operator') : Promise.resolve();
      const run = await timed(
        cpu,
        async () => {
          await inParallel(n, createConcurrency, async (i) => {
            const { namespace, name } = objects[i]!;
            await admin.json('POST', collectionPath(coderControlPlaneResource, namespace), { body: controlPlaneBody(namespace, name) });
          });
          // A progress line every 30 s on stderr: at --n=5000 the run takes long and the figures print only at the end.
          const t0 = performance.now();
          let lastProgress = t0;
          while (ready.count() < n) {
            if (performance.now() - lastProgress >= 30_000) {
              lastProgress = performance.now();
              process.stderr.write(`${((lastProgress - t0) / 1000).toFixed(0)} s: ${ready.count()}/${n} Ready\n`);
            }
            await sleep(200);
          }
        },
        pid,
      );
      const allReady = new Date();
      const after = figures(await samples());
      const peakRss = await peakRssMiB(pid);
      const memoryAtPeak = await memory.stop();
      await Promise.all([profile, ready.stop()]);
      if (!first) {
        await op.process.stop();
        return run;
      }
      const writes = await operatorWrites(cp, started, allReady);
      const reads = await operatorReads(cp, started, allReady);
      const { deployment, service, serviceAccount, role, roleBinding } = builtinResources;
      const cached = [coderControlPlaneResource, deployment, service, serviceAccount, role, roleBinding];
      const perObject = [];
      for (const resource of cached) perObject.push(await heapPerObject(admin, resource));

      await sleep(2_000);
      const quietFrom = new Date();
      const coderCallsBefore = coder.calls();
      await sleep(quietSeconds * 1000);
      const quietCoderCalls = coder.calls() - coderCallsBefore;
      const quietWrites = await operatorWrites(cp, quietFrom);

      const rssBeforeSecrets = await rssMiB(pid);
      const payload = Buffer.alloc(16 * 1024, 'x')
        .toString('base64')
        .slice(0, 16 * 1024);
      await inParallel(unrelatedSecrets, 50, async (i) => {
        await admin.json('POST', collectionPath(builtinResources.secret, 'unrelated'), {
          body: {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: `release-${i}`, namespace: 'unrelated' },
            data: { release: payload },
          },
        });
      });
      await sleep(15_000);
      const rssWithSecrets = await rssMiB(pid);
      await op.process.stop();

      const per = (v: number) => (v / n).toFixed(2);
      detail('writes per object', `${per(writes.length)} (${writes.length}: ${byResource(writes)})`);
      detail('reconciles per object', `${per(after.reconciles - before.reconciles)}`);
      detail('requests per object', `${per(after.requests - before.requests)}`);
      detail('reads per object (audited)', `${per(reads.length)} (${reads.length}: ${byResource(reads)})`);
      detail('409 Conflict answers', `${after.conflicts - before.conflicts}`);
      detail('429 (Priority and Fairness) answers', `${after.throttled - before.throttled}`);
      detail('operator CPU, first create → all Ready', `${(after.cpu - before.cpu).toFixed(1)} s`);
      detail('CPU by program: operator run', run.cpu);
      detail('API server time: operator', serverTimeByKind(writes));
      detail('Deployment applied → Ready written', deploymentToReady(writes));
      detail('RSS idle (no objects) / peak', `${idleRss.toFixed(0)} / ${peakRss.toFixed(0)} MiB`);
      detail('memory at its highest reading', memoryAtPeak);
      detail('heap per cached object', perObject.join(', '));
      detail(
        `writes in ${quietSeconds} s of quiet`,
        `${quietWrites.length}${quietWrites.length ? ` (${byResource(quietWrites)})` : ''} (lease renewals not counted)`,
      );
      detail(`Coder calls in ${quietSeconds} s of quiet`, `${quietCoderCalls}`);
      detail(
        `RSS before / with ${unrelatedSecrets} unrelated 16 KiB Secrets`,
        `${rssBeforeSecrets.toFixed(0)} / ${rssWithSecrets.toFixed(0)} MiB (+${(rssWithSecrets - rssBeforeSecrets).toFixed(1)})`,
      );
      return run;
    } finally {
      await coder.close();
    }
  });

const bareRun = (first: boolean) =>
  onFreshCluster(async ({ admin, cpu }): Promise<Timed> => {
    const profile = first ? profileApiServer(admin, 'bare-client') : Promise.resolve();
    const run = await timed(cpu, () => bareClientRun(admin, objects, bareConcurrency));
    if (first) detail('CPU by program: bare client', run.cpu);
    await profile;
    return run;
  });

const workRun = (first: boolean) =>
  onFreshCluster(async ({ cp, admin, kubeconfig, cpu }): Promise<Timed> => {
    const operatorIdentity = new KubeConfig();
    operatorIdentity.loadFromFile(kubeconfig);
    const from = new Date();
    const profile = first ? profileApiServer(admin, 'operators-writes') : Promise.resolve();
    const run = await timed(cpu, () =>
      bareOperatorWorkRun(admin, new KubeHttp(operatorIdentity), objects, createConcurrency, reconcileConcurrency),
    );
    if (first) {
      detail("CPU by program: operator's writes", run.cpu);
      detail("API server time: operator's writes", serverTimeByKind(await operatorWrites(cp, from, new Date())));
    }
    await profile;
    return run;
  });

const times = { operator: [] as Timed[], bare: [] as Timed[], work: [] as Timed[] };
for (let round = 0; round < runs; round++) {
  times.operator.push(await operatorRun(round === 0));
  times.bare.push(await bareRun(round === 0));
  times.work.push(await workRun(round === 0));
}

const secondsOf = (t: Timed[]) => t.map((r) => r.seconds);
const min = (t: Timed[]) => Math.min(...secondsOf(t));
const median = (t: Timed[]) => medianOf(secondsOf(t));
const summary = (t: Timed[]) =>
  t.length === 1 ? `${t[0]!.seconds.toFixed(1)} s` : `${min(t).toFixed(1)} / ${median(t).toFixed(1)} s (min / median)`;
const ratio = (a: Timed[], b: Timed[]) =>
  a.length === 1
    ? `${(a[0]!.seconds / b[0]!.seconds).toFixed(2)}×`
    : `${(min(a) / min(b)).toFixed(2)}× / ${(median(a) / median(b)).toFixed(2)}×`;

const print = (label: string, value: string) => console.log(`${label.padEnd(44)} ${value}`);
print('machine', `${cpus().length} cores`);
print('control planes', `${n} over ${namespaces.length} namespaces (operator access disabled; operator at its defaults)`);
for (let round = 0; round < runs; round++) {
  const each = (label: string, t: Timed) => `${label} ${t.seconds.toFixed(1)} s (${t.note})`;
  print(
    `round ${round + 1}`,
    [each('operator', times.operator[round]!), each('bare client', times.bare[round]!), each("operator's writes", times.work[round]!)].join(
      '; ',
    ),
  );
}
print('create → all Ready: operator', summary(times.operator));
print('create → all status set: bare client', `${summary(times.bare)} (${bareConcurrency} at once, 4 writes per object)`);
print(
  "create → all status set: operator's writes",
  `${summary(times.work)} (a bare client, ${reconcileConcurrency} at once as the operator, 6 writes per object)`,
);
print('operator / bare client', ratio(times.operator, times.bare));
print("operator / the operator's writes", ratio(times.operator, times.work));
for (const [label, value] of details) print(label, value);
