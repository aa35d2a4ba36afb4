// kubectl against a harness control plane, as the deploy guide's commands are written.
import { execFile, spawn } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubectl(kubeconfig: string, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** kubectl still running, for commands that stream (get --raw of a followed log): its output so far, and its end. */
export interface RunningKubectl {
  stdout(): string;
  /** Undefined while kubectl runs. */
  exitCode(): number | null | undefined;
  exited: Promise<KubectlResult>;
  kill(): void;
}

export function kubectlStreaming(kubeconfig: string, args: string[]): RunningKubectl {
  const child = spawn('kubectl', ['--kubeconfig', kubeconfig, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let code: number | null | undefined;
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<KubectlResult>((resolve) =>
    child.on('close', (exit) => {
      code = exit;
      resolve({ code: exit ?? 1, stdout, stderr });
    }),
  );
  return { stdout: () => stdout, exitCode: () => code, exited, kill: () => child.kill('SIGTERM') };
}

/** kubectl that must succeed; the error shows the command and what kubectl said. */
export async function kubectlOk(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const result = await kubectl(kubeconfig, args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}):\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/**
 * Waits until every named CRD (every CRD when none is named) is Established. Neither `kubectl wait`
 * nor a jsonpath filter: kubectl 1.32 fails at once on both ("status.conditions accessor error", "<nil>
 * is not array or slice") when it looks before the API server has written a new CRD's first conditions.
 */
export async function waitForCrdsEstablished(kubeconfig: string, names: string[] = [], timeoutMs = 60_000): Promise<void> {
  interface Crd {
    metadata: { name: string };
    status?: { conditions?: { type: string; status: string }[] | null };
  }
  const deadline = Date.now() + timeoutMs;
  let pending: string[] = [];
  while (Date.now() < deadline) {
    const { items } = JSON.parse(await kubectlOk(kubeconfig, ['get', 'crd', '-o', 'json'])) as { items: Crd[] };
    const established = new Set(
      items
        .filter((crd) => crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
        .map((crd) => crd.metadata.name),
    );
    pending = (names.length ? names : items.map((crd) => crd.metadata.name)).filter((name) => !established.has(name));
    if (items.length > 0 && pending.length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`CRDs not Established within ${timeoutMs} ms: ${pending.join(', ') || 'none listed'}`);
}
