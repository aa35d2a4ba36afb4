// Helm (built by harness:build) against a harness control plane, as docs/how-to/install-helm.md runs it.
import { execFile } from 'node:child_process';
import { binaries } from './binaries.ts';
import type { KubectlResult } from './kubectl.ts';

export const chartDir = 'charts/coder-k8s';

/** helm with `args`; against the cluster of `kubeconfig` when one is given (helm template and lint need none). */
export function helm(args: string[], kubeconfig?: string): Promise<KubectlResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}) };
  // Helm keeps its cache and repository files under $HOME unless told otherwise; tests leave $HOME alone.
  for (const [name, dir] of [
    ['HELM_CACHE_HOME', 'cache'],
    ['HELM_CONFIG_HOME', 'config'],
    ['HELM_DATA_HOME', 'data'],
  ] as const) {
    env[name] ??= `${process.env.TMPDIR ?? '/tmp'}/coder-k8s-helm-${process.getuid?.() ?? 0}/${dir}`;
  }
  return new Promise((resolve) => {
    execFile(binaries.helm(), args, { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** helm that must succeed; the error shows the command and what helm said. */
export async function helmOk(args: string[], kubeconfig?: string): Promise<string> {
  const result = await helm(args, kubeconfig);
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${result.code}):\n${result.stderr}${result.stdout}`);
  return result.stdout;
}
