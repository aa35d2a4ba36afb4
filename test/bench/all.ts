// `npm run bench:all -- --n=1000 [--runs=3]`: every figure of the performance targets in one command (figures, not a
// test), one bench after another so that none shares the machine with another: start-up (CPU to /readyz,
// idle RSS), scale (time to all Ready against both bare-client baselines, requests per object, CPU, RSS) and
// the aggregated API under load (against a built-in list of the same size and the direct Coder call).
// Each prints the machine's cores and load with its figures.
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { n: { type: 'string', default: '1000' }, runs: { type: 'string', default: '3' } }, strict: true });
const benches: { name: string; args: string[] }[] = [
  { name: 'bench:startup', args: ['test/bench/operator-startup.ts'] },
  {
    name: `bench:scale -- --n=${values.n} --runs=${values.runs}`,
    args: ['test/bench/scale.ts', `--n=${values.n}`, `--runs=${values.runs}`],
  },
  { name: 'bench:aggregated', args: ['test/bench/aggregated-list.ts'] },
];

let failed = 0;
for (const bench of benches) {
  console.log(`\n=== npm run ${bench.name} (${cpus().length} cores, 1-minute load ${loadavg()[0]!.toFixed(2)} at its start)`);
  const { status } = spawnSync(process.execPath, bench.args, { stdio: 'inherit' });
  if (status !== 0) {
    console.log(`npm run ${bench.name} exited ${status}`);
    failed++;
  }
}
process.exitCode = failed ? 1 : 0;
