// `npm run bench:aggregated`: the aggregated API under load (figures, not a test). For each size N
// (N=1000,10000 by default) and each Coder (CODER=double,real by default: the Coder API double, and the real
// Coder server whose workspaces its echo provisioner built; aggregated/workspace-sources.ts) a fresh
// control plane, that Coder holding N workspaces, and N ConfigMaps, the built-in list of the same size.
// Timed, each RUNS times:
// - `kubectl get coderworkspaces -A` through kube-apiserver's aggregator, a new process each run as a user's
//   is: with the list cache warm, and reading Coder (a read after a write that made the operator call Coder's
//   list; the write drops the cache, though its own answer may fill it again, so not every such read counts);
// - `kubectl get configmaps -A`, the built-in list through the same kube-apiserver;
// - in process, without kubectl's start-up: the same two lists (GET through kube-apiserver as the admin), and
//   the Coder calls the operator makes for the list (every page, as src/coder/workspace-list.ts reads them),
//   sent straight to Coder with the operator's token.
// The ratios say what the aggregated API costs over a built-in list, and the operator over Coder itself.
import { execFile } from 'node:child_process';
import { CoreV1Api } from '@kubernetes/client-node';
import { CoderClient } from '../../src/coder/client.ts';
import { listAllWorkspaces } from '../../src/coder/workspace-list.ts';
import { openApiStream } from '../harness/api-stream.ts';
import { startAggregatedApi } from '../harness/aggregated-api.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { cpus, loadavg } from 'node:os';
import { doubleWithWorkspaces, realCoderWithWorkspaces, type WorkspaceSource } from './aggregated/workspace-sources.ts';

const sizes = (process.env.N ?? '1000,10000').split(',').map(Number);
const runs = Number(process.env.RUNS ?? 20);
const sources = { double: doubleWithWorkspaces, real: realCoderWithWorkspaces };
const coders = (process.env.CODER ?? 'double,real').split(',').map((name) => {
  if (!(name in sources)) throw new Error(`CODER=${process.env.CODER}: expected double, real or both (comma-separated)`);
  return name as keyof typeof sources;
});
const namespace = 'coder';
const workspacesPath = '/apis/aggregation.coder.com/v1alpha1/coderworkspaces';

const elapsedMs = async (work: () => Promise<unknown>) => {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
};
const kubectl = (kubeconfig: string, args: string[]) =>
  new Promise<void>((resolve, reject) =>
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 512 << 20 }, (err) => (err ? reject(err) : resolve())),
  );

/** GET through kube-apiserver as the admin; the answer's size in bytes. */
async function apiGet(cp: ControlPlane, path: string): Promise<number> {
  const answer = await openApiStream(cp, path);
  await answer.ended;
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text().slice(0, 200)}`);
  return Buffer.byteLength(answer.text());
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const p50 = (ms: number[]) =>
  percentile(
    [...ms].sort((a, b) => a - b),
    50,
  );
const summary = (ms: number[]) => {
  if (!ms.length) return 'no sample';
  const s = [...ms].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50).toFixed(0).padStart(5)} ms, p99 ${percentile(s, 99).toFixed(0).padStart(5)} ms (${s.length} runs)`;
};
const ratio = (a: number[], b: number[]) => (a.length && b.length ? `${(p50(a) / p50(b)).toFixed(2)}×` : 'n/a');

async function createConfigMaps(cp: ControlPlane, n: number) {
  const core = cp.adminConfig().makeApiClient(CoreV1Api);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `cm${i}` }, data: { owner: 'alice' } } });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

async function measure(n: number, source: (n: number) => Promise<WorkspaceSource>) {
  const coder = await source(n);
  const cp = await startControlPlane().catch(async (err) => {
    await coder.stop();
    throw err;
  });
  try {
    const admin = cp.adminKubeconfigPath;
    await kubectlOk(admin, ['create', 'namespace', namespace]);
    await createConfigMaps(cp, n);
    const { operator } = await startAggregatedApi(cp, coder, coder.token, namespace);
    const rows = (await kubectlOk(admin, ['get', 'coderworkspaces', '-A', '--no-headers'])).trim().split('\n').length;
    if (rows !== n) throw new Error(`kubectl listed ${rows} workspaces, not ${n}`);

    const f = {
      kubectlWarm: [] as number[],
      kubectlCold: [] as number[],
      kubectlBuiltin: [] as number[],
      rawWarm: [] as number[],
      rawCold: [] as number[],
      rawBuiltin: [] as number[],
      coderDirect: [] as number[],
    };
    let readsAfterWrites = 0;
    /** Times `read` into `samples` when it made the operator call Coder's list (a write drops the list cache, but the write's own answer may fill it again). */
    const readingCoder = async (samples: number[], read: () => Promise<unknown>) => {
      const before = await coder.listCalls();
      const ms = await elapsedMs(read);
      readsAfterWrites++;
      if ((await coder.listCalls()) > before) samples.push(ms);
    };
    const bytes = { workspaces: 0, configmaps: 0, coder: 0 };
    const write = (i: number) =>
      kubectlOk(admin, [
        'patch',
        'coderworkspace',
        coder.workspaceName(i),
        '-n',
        namespace,
        '--type=merge',
        '-p',
        `{"spec":{"running":${i % 2 === 1}}}`,
      ]);
    for (let i = 0; i < runs; i++) {
      f.kubectlWarm.push(await elapsedMs(() => kubectl(admin, ['get', 'coderworkspaces', '-A'])));
      f.kubectlBuiltin.push(await elapsedMs(() => kubectl(admin, ['get', 'configmaps', '-A'])));
      f.rawWarm.push(await elapsedMs(async () => (bytes.workspaces = await apiGet(cp, workspacesPath))));
      f.rawBuiltin.push(await elapsedMs(async () => (bytes.configmaps = await apiGet(cp, '/api/v1/configmaps'))));
      f.coderDirect.push(await elapsedMs(async () => (bytes.coder = await coderDirect(coder))));
      await write(i);
      await readingCoder(f.kubectlCold, () => kubectl(admin, ['get', 'coderworkspaces', '-A']));
      await write(i + 1);
      await readingCoder(f.rawCold, () => apiGet(cp, workspacesPath));
    }
    await operator.process.stop();

    const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
    console.log(
      `\nN=${n}: ${n} workspaces in ${coder.label} (${coder.seeded}), ${n} ConfigMaps (${cpus().length} cores, 1-minute load ${loadavg()[0]!.toFixed(2)} at the end)`,
    );
    console.log(`  kubectl get coderworkspaces -A, cache warm:     ${summary(f.kubectlWarm)}`);
    console.log(`  kubectl get coderworkspaces -A, reading Coder:  ${summary(f.kubectlCold)}`);
    console.log(`  kubectl get configmaps -A (built-in):           ${summary(f.kubectlBuiltin)}`);
    console.log(`  GET coderworkspaces, cache warm (in process):   ${summary(f.rawWarm)}, ${kib(bytes.workspaces)}`);
    console.log(`  GET coderworkspaces, reading Coder:             ${summary(f.rawCold)}`);
    console.log(`  GET configmaps (built-in, in process):          ${summary(f.rawBuiltin)}, ${kib(bytes.configmaps)}`);
    console.log(`  Coder's list (every page), direct:             ${summary(f.coderDirect)}, ${kib(bytes.coder)}`);
    console.log(
      `  p50 ratios: kubectl aggregated/built-in ${ratio(f.kubectlWarm, f.kubectlBuiltin)} warm, ${ratio(f.kubectlCold, f.kubectlBuiltin)} reading Coder;`,
    );
    console.log(
      `              in process aggregated/built-in ${ratio(f.rawWarm, f.rawBuiltin)} warm, ${ratio(f.rawCold, f.rawBuiltin)} reading Coder;`,
    );
    console.log(`              reading Coder / the direct Coder call ${ratio(f.rawCold, f.coderDirect)}`);
    console.log(`  reads after a write that called Coder's list: ${f.kubectlCold.length + f.rawCold.length} of ${readsAfterWrites}`);
  } finally {
    await Promise.all([cp.stop(), coder.stop()]);
  }
}

/** The workspace list as the operator reads it from Coder (every page), sent straight to Coder; its size in bytes. */
async function coderDirect(coder: WorkspaceSource): Promise<number> {
  const workspaces = await listAllWorkspaces(new CoderClient({ baseURL: coder.url, token: coder.token }), '');
  return Buffer.byteLength(JSON.stringify(workspaces));
}

for (const n of sizes) for (const name of coders) await measure(n, sources[name]);
