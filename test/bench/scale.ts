// `npm run bench:scale -- --n=1000`: the scale figures in one run (figures, not a test). On one control
// plane with kwok: N control planes (operator access off) over 4 namespaces from create to Ready with the
// operator at its defaults; then 60 s of quiet; then 5,000 unrelated 16 KiB Secrets; then, the operator
// stopped, two baselines of the same N objects: a plain client creating them, their Deployment and Service,
// and setting their status, which is what the API server itself sustains here; and a plain client doing the
// operator's own writes (its children, built by its builders, as its identity, and one status write) as
// many at once as the operator's reconciles.
// QUIET_SECONDS, SECRETS and BARE_CONCURRENCY override the defaults (for a quick look, not for figures).
import { KubeConfig } from '@kubernetes/client-node';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { coderControlPlaneResource } from '../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { defaultConcurrentReconciles } from '../../src/app/options.ts';
import { KubeHttp } from '../../src/runtime/kube-http.ts';
import { builtinResources, collectionPath } from '../../src/runtime/resource.ts';
import { startControlPlane } from '../harness/control-plane.ts';
import { installOperatorRbac, startOperator } from '../harness/operator.ts';
import { byResource, operatorReads, operatorWrites } from '../harness/operator-writes.ts';
import { parseSamples, type Sample } from '../harness/prometheus.ts';
import { bareClientRun, bareOperatorWorkRun, controlPlaneBody } from './scale/bare-client.ts';
import { startCoderCallCounter } from './scale/coder-call-counter.ts';
import { inParallel } from './scale/pool.ts';
import { peakRssMiB, rssMiB } from './scale/process-stats.ts';

const { values } = parseArgs({ options: { n: { type: 'string', default: '1000' } }, strict: true });
const n = Number(values.n);
if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--n=${values.n}: expected a whole number above 0`);
const quietSeconds = Number(process.env.QUIET_SECONDS ?? 60);
const unrelatedSecrets = Number(process.env.SECRETS ?? 5000);
const bareConcurrency = Number(process.env.BARE_CONCURRENCY ?? 32);
const namespaces = ['scale-0', 'scale-1', 'scale-2', 'scale-3'];
const bareNamespaces = ['bare-0', 'bare-1', 'bare-2', 'bare-3'];
const workNamespaces = ['work-0', 'work-1', 'work-2', 'work-3'];
/** How many control planes the bench creates at once; the operator's baseline works as many at once as it reconciles. */
const createConcurrency = 50;
const reconcileConcurrency = defaultConcurrentReconciles;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const objects = (spaces: string[]) => Array.from({ length: n }, (_, i) => ({ namespace: spaces[i % spaces.length]!, name: `cp-${i}` }));

async function readyCount(http: KubeHttp): Promise<number> {
  let ready = 0;
  for (const ns of namespaces) {
    const list = await http.json<{ items: CoderControlPlane[] }>('GET', collectionPath(coderControlPlaneResource, ns));
    ready += list.items.filter((o) => o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  }
  return ready;
}

const cp = await startControlPlane({ kwok: true });
const coder = await startCoderCallCounter();
try {
  const kubeconfig = await installOperatorRbac(cp);
  const admin = new KubeHttp(cp.adminConfig());
  for (const name of [...namespaces, ...bareNamespaces, ...workNamespaces, 'unrelated'])
    await admin.json('POST', collectionPath(builtinResources.namespace), {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });

  const op = await startOperator(cp, kubeconfig, { args: ['--log-level=warn', `--test-only-coder-url=${coder.url}`] });
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
  await sleep(10_000);
  const idleRss = await rssMiB(pid);

  const before = figures(await samples());
  const loadAtStart = loadavg()[0]!;
  const started = new Date();
  const t0 = performance.now();
  await inParallel(n, createConcurrency, async (i) => {
    const { namespace, name } = objects(namespaces)[i]!;
    await admin.json('POST', collectionPath(coderControlPlaneResource, namespace), { body: controlPlaneBody(namespace, name) });
  });
  // A progress line every 30 s on stderr: at --n=5000 the run takes long and the figures print only at the end.
  let lastProgress = performance.now();
  for (let ready = await readyCount(admin); ready < n; ready = await readyCount(admin)) {
    if (performance.now() - lastProgress >= 30_000) {
      lastProgress = performance.now();
      process.stderr.write(`${((lastProgress - t0) / 1000).toFixed(0)} s: ${ready}/${n} Ready\n`);
    }
    await sleep(1_000);
  }
  const operatorSeconds = (performance.now() - t0) / 1000;
  const allReady = new Date();
  const loadAtReady = loadavg()[0]!;
  const after = figures(await samples());
  const peakRss = await peakRssMiB(pid);
  const writes = await operatorWrites(cp, started, allReady);
  const reads = await operatorReads(cp, started, allReady);

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
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `release-${i}`, namespace: 'unrelated' }, data: { release: payload } },
    });
  });
  await sleep(15_000);
  const rssWithSecrets = await rssMiB(pid);
  await op.process.stop();

  const bareStarted = performance.now();
  await bareClientRun(admin, objects(bareNamespaces), bareConcurrency);
  const bareSeconds = (performance.now() - bareStarted) / 1000;
  const operatorIdentity = new KubeConfig();
  operatorIdentity.loadFromFile(kubeconfig);
  const workStarted = performance.now();
  await bareOperatorWorkRun(admin, new KubeHttp(operatorIdentity), objects(workNamespaces), createConcurrency, reconcileConcurrency);
  const workSeconds = (performance.now() - workStarted) / 1000;

  const per = (v: number) => (v / n).toFixed(2);
  const row = (label: string, value: string) => console.log(`${label.padEnd(44)} ${value}`);
  row(
    'machine',
    `${cpus().length} cores; 1-minute load ${loadAtStart.toFixed(2)} at the first create, ${loadAtReady.toFixed(2)} at all Ready`,
  );
  row('control planes', `${n} over ${namespaces.length} namespaces (operator access disabled; operator at its defaults)`);
  row('create → all Ready: operator', `${operatorSeconds.toFixed(1)} s`);
  row('create → all status set: bare client', `${bareSeconds.toFixed(1)} s (${bareConcurrency} at once, 4 writes per object)`);
  row('operator / bare client', `${(operatorSeconds / bareSeconds).toFixed(2)}×`);
  row(
    "create → all status set: operator's writes",
    `${workSeconds.toFixed(1)} s (a bare client, ${reconcileConcurrency} at once as the operator, 6 writes per object)`,
  );
  row("operator / the operator's writes", `${(operatorSeconds / workSeconds).toFixed(2)}×`);
  row('writes per object', `${per(writes.length)} (${writes.length}: ${byResource(writes)})`);
  row('reconciles per object', `${per(after.reconciles - before.reconciles)}`);
  row('requests per object', `${per(after.requests - before.requests)}`);
  row('reads per object (audited)', `${per(reads.length)} (${reads.length}: ${byResource(reads)})`);
  row('409 Conflict answers', `${after.conflicts - before.conflicts}`);
  row('429 (Priority and Fairness) answers', `${after.throttled - before.throttled}`);
  row('operator CPU, first create → all Ready', `${(after.cpu - before.cpu).toFixed(1)} s`);
  row('RSS idle (no objects) / peak', `${idleRss.toFixed(0)} / ${peakRss.toFixed(0)} MiB`);
  row(
    `writes in ${quietSeconds} s of quiet`,
    `${quietWrites.length}${quietWrites.length ? ` (${byResource(quietWrites)})` : ''} (lease renewals not counted)`,
  );
  row(`Coder calls in ${quietSeconds} s of quiet`, `${quietCoderCalls}`);
  row(
    `RSS before / with ${unrelatedSecrets} unrelated 16 KiB Secrets`,
    `${rssBeforeSecrets.toFixed(0)} / ${rssWithSecrets.toFixed(0)} MiB (+${(rssWithSecrets - rssBeforeSecrets).toFixed(1)})`,
  );
} finally {
  await coder.close();
  await cp.stop();
}
