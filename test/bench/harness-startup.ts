// `npm run bench:harness`: start-up time of the test control plane and PostgreSQL (figures, not a test).
import { startControlPlane, type ControlPlaneOptions } from '../harness/control-plane.ts';
import { startPostgres } from '../harness/postgres.ts';
import { median } from './median.ts';

const runs = Number(process.env.RUNS ?? 5);

async function measure(label: string, start: () => Promise<{ stop(): Promise<void> }>): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const started = await start();
    times.push(performance.now() - t0);
    await started.stop();
  }
  const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `${label.padEnd(44)} median ${fmt(median(times))}  min ${fmt(Math.min(...times))}  max ${fmt(Math.max(...times))}  (n=${runs})`,
  );
}

const variants: [string, ControlPlaneOptions][] = [
  ['etcd + kube-apiserver', {}],
  ['+ kube-controller-manager', { controllers: true }],
  ['+ kube-scheduler + kwok (Node Ready)', { kwok: true }],
];
for (const [label, options] of variants) await measure(label, () => startControlPlane(options));
await measure('PostgreSQL (initdb + start)', startPostgres);
