// `npm run bench:runtime`: the operator process reconciling N new objects (figures, not a test):
// time from the first create to all reconciled, reconciles per second, peak RSS, API requests per object.
import { readFileSync } from 'node:fs';
import { coderControlPlaneClient } from '../../generated/clients/index.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { startControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { installOperatorRbac, startOperator } from '../harness/operator.ts';
import { parseSamples } from '../harness/prometheus.ts';

const n = Number(process.env.N ?? 500);
const concurrency = Number(process.env.CONCURRENCY ?? 4);
const namespace = 'bench';

function peakRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

async function counters(metricsUrl: string): Promise<{ requests: number; reconciles: number }> {
  const samples = parseSamples(await (await fetch(metricsUrl)).text());
  const sum = (name: string, filter: (l: Record<string, string>) => boolean = () => true) =>
    samples.filter((s) => s.name === name && filter(s.labels)).reduce((a, s) => a + s.value, 0);
  return {
    requests: sum('rest_client_requests_total'),
    reconciles: sum('controller_runtime_reconcile_total', (l) => l.controller === 'codercontrolplane'),
  };
}

const cp = await startControlPlane();
try {
  const kubeconfig = await installOperatorRbac(cp);
  await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', namespace]);
  const op = await startOperator(cp, kubeconfig, { args: [`--max-concurrent-reconciles=${concurrency}`, '--log-level=warn'] });
  const client = coderControlPlaneClient(cp.adminConfig());
  const before = await counters(op.metricsUrl);
  const started = performance.now();
  const names = Array.from({ length: n }, (_, i) => `bench-${i}`);
  for (let i = 0; i < names.length; i += 50) {
    await Promise.all(
      names.slice(i, i + 50).map((name) =>
        client.create({
          apiVersion: 'coder.com/v1alpha1',
          kind: 'CoderControlPlane',
          metadata: { name, namespace },
          spec: {},
        } satisfies CoderControlPlane),
      ),
    );
  }
  const created = performance.now();
  for (;;) {
    const list = await client.list(namespace);
    if (list.items.filter((o) => o.status?.observedGeneration === o.metadata.generation).length === n) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const done = performance.now();
  const after = await counters(op.metricsUrl);
  const seconds = (done - started) / 1000;
  const reconciles = after.reconciles - before.reconciles;
  console.log(`objects                      ${n} (max-concurrent-reconciles=${concurrency})`);
  console.log(`create all (client side)     ${((created - started) / 1000).toFixed(2)} s`);
  console.log(`first create → all reconciled ${seconds.toFixed(2)} s`);
  console.log(
    `reconciles                   ${reconciles} (${(reconciles / n).toFixed(2)} per object), ${(reconciles / seconds).toFixed(0)} per second`,
  );
  console.log(
    `API requests by the operator ${after.requests - before.requests} (${((after.requests - before.requests) / n).toFixed(2)} per object)`,
  );
  console.log(`operator peak RSS            ${peakRssMiB(op.process.pid!).toFixed(0)} MiB`);
  await op.process.stop();
} finally {
  await cp.stop();
}
