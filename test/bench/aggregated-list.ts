// `npm run bench:aggregated`: latency of `kubectl get coderworkspaces` through the kube-apiserver's
// aggregator with N workspaces in the Coder API double (figures, not a test). Each kubectl run is a new
// process, as a user's is; the first run after a write or after 30 s reads Coder, the others the list
// cache. Also the raw list through kube-apiserver, without kubectl's start-up.
import { execFile } from 'node:child_process';
import { seedRunningWorkspaces } from '../harness/coder-api-double/workspace-world.ts';
import { startAggregatedApi } from '../harness/aggregated-api.ts';
import { startCoderApiDouble } from '../harness/coder-api-double.ts';
import { startControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';

const n = Number(process.env.N ?? 1000);
const runs = Number(process.env.RUNS ?? 40);
const token = 'aggregatedbench-operatortokenvalue000';
const namespace = 'coder';

function timed(kubeconfig: string, args: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) =>
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 256 << 20 }, (err) =>
      err ? reject(err) : resolve(Number(process.hrtime.bigint() - started) / 1e6),
    ),
  );
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50).toFixed(0)} ms, p99 ${percentile(s, 99).toFixed(0)} ms, max ${s.at(-1)!.toFixed(0)} ms (${s.length} runs)`;
};

const [cp, coder] = await Promise.all([startControlPlane(), startCoderApiDouble({ tokens: [token] })]);
try {
  const admin = cp.adminKubeconfigPath;
  await kubectlOk(admin, ['create', 'namespace', namespace]);
  const names = Array.from({ length: n }, (_, i) => `ws${i}`);
  seedRunningWorkspaces(coder.state.world, coder.state.users, {
    organization: 'acme',
    template: 'starter',
    owner: 'alice',
    workspaces: names,
  });
  const { operator } = await startAggregatedApi(cp, coder, token, namespace);
  const listCalls = () => coder.requests.filter((r) => r.operationId === 'listWorkspaces').length;
  const get = ['get', 'coderworkspaces', '-n', namespace];
  const rows = (await kubectlOk(admin, get)).trim().split('\n').length - 1;
  if (rows !== n) throw new Error(`kubectl listed ${rows} workspaces, not ${n}`);
  const cached: number[] = [];
  for (let i = 0; i < runs; i++) cached.push(await timed(admin, get));
  const raw: number[] = [];
  for (let i = 0; i < runs; i++)
    raw.push(await timed(admin, ['get', '--raw', `/apis/aggregation.coder.com/v1alpha1/namespaces/${namespace}/coderworkspaces`]));
  // A write drops the cache: each of these reads Coder.
  const uncached: number[] = [];
  for (let i = 0; i < Math.min(runs, 20); i++) {
    await kubectlOk(admin, [
      'patch',
      'coderworkspace',
      `acme.alice.ws${i}`,
      '-n',
      namespace,
      '--type=merge',
      '-p',
      '{"spec":{"running":false}}',
    ]);
    uncached.push(await timed(admin, get));
  }
  console.log(`kubectl get coderworkspaces, ${n} workspaces, through the aggregator:`);
  console.log(`  list cache warm:        ${summary(cached)}`);
  console.log(`  after a write (Coder):  ${summary(uncached)}`);
  console.log(`  kubectl get --raw:      ${summary(raw)}`);
  console.log(`  Coder list calls in all: ${listCalls()}`);
  await operator.process.stop();
} finally {
  await Promise.all([cp.stop(), coder.stop()]);
}
