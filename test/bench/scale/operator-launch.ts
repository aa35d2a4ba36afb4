// How the scale bench starts the operator: as the image does (test/harness/operator.ts), with the Node.js
// flags of BENCH_NODE_FLAGS added (to compare, say, garbage collector settings) and, under BENCH_PROFILE_DIR,
// --cpu-prof (written when the operator stops; open it in Chrome DevTools).
import { defaultOperatorLaunch, type OperatorLaunch } from '../../harness/operator.ts';

export function operatorLaunch(): OperatorLaunch {
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  return { ...defaultOperatorLaunch, args: [...extra, ...profile, ...defaultOperatorLaunch.args] };
}
