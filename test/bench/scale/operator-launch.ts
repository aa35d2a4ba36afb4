// How the scale bench starts the operator: as the image does (test/harness/operator.ts), with the Node.js
// flags of BENCH_NODE_FLAGS after the image's, so that they override them (to compare, say, V8's compilers:
// BENCH_NODE_FLAGS=--max-opt=4) and, under BENCH_PROFILE_DIR, --cpu-prof (written when the operator stops;
// open it in Chrome DevTools).
import { defaultOperatorLaunch, imageNodeFlags, type OperatorLaunch } from '../../harness/operator.ts';

/** The image's Node.js flags, then BENCH_NODE_FLAGS. */
export function operatorNodeFlags(): string[] {
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  return [...imageNodeFlags, ...extra];
}

export function operatorLaunch(): OperatorLaunch {
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  return { ...defaultOperatorLaunch, args: [...operatorNodeFlags(), ...profile, 'bin/coder-k8s.js'] };
}
