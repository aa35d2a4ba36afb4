// kubectl against a harness control plane, as the seed's commands are written.
import { execFile } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubectl(kubeconfig: string, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 64 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** kubectl that must succeed; the error shows the command and what kubectl said. */
export async function kubectlOk(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const result = await kubectl(kubeconfig, args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}):\n${result.stderr}${result.stdout}`);
  return result.stdout;
}
