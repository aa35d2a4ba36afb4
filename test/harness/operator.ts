// The operator as its own process against a harness control plane, under the generated RBAC only.
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlPlane } from './control-plane.ts';
import { dockerfileInstructions } from './image-layout.ts';
import { kubectlOk } from './kubectl.ts';
import { freePort } from './ports.ts';
import { answers200 } from './probe.ts';
import { ManagedProcess, waitUntilReady } from './process.ts';

export const operatorNamespace = 'coder-system';
export const operatorServiceAccount = 'coder-k8s';

/** Applies the CRDs and config/rbac/ as the deploy guide's install step does; returns the operator's kubeconfig. */
export async function installOperatorRbac(cp: ControlPlane, crds = ['config/crd/bases/']): Promise<string> {
  await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', operatorNamespace]).catch(() => undefined);
  await kubectlOk(cp.adminKubeconfigPath, ['apply', ...crds.flatMap((c) => ['-f', c]), '-f', 'config/rbac/']);
  return cp.operatorKubeconfig(operatorNamespace, operatorServiceAccount);
}

export interface RunningOperator {
  process: ManagedProcess;
  metricsUrl: string;
  probesUrl: string;
  logFile: string;
}

/** How the operator is started: by default as the image starts it (Dockerfile ENTRYPOINT), from the checkout, as this user. */
export interface OperatorLaunch {
  command: string;
  args: string[];
  cwd?: string;
  uid?: number;
  gid?: number;
  /** The whole environment (POD_NAMESPACE is added); the harness's own when unset. */
  env?: NodeJS.ProcessEnv;
}

/** The Node.js flags of an ENTRYPOINT that runs `… node <flags> bin/coder-k8s.js`. */
export function entrypointNodeFlags(entrypoint: string[]): string[] {
  const node = entrypoint.indexOf('node');
  const bin = entrypoint.indexOf('bin/coder-k8s.js');
  if (node < 0 || bin < node) throw new Error(`ENTRYPOINT ${JSON.stringify(entrypoint)}: expected … node <flags> bin/coder-k8s.js`);
  return entrypoint.slice(node + 1, bin);
}

function dockerfileEntrypoint(): string[] {
  const dockerfile = readFileSync(join(import.meta.dirname, '..', '..', 'Dockerfile'), 'utf8');
  const entrypoint = dockerfileInstructions(dockerfile).findLast(({ op }) => op === 'ENTRYPOINT');
  return entrypoint ? (JSON.parse(entrypoint.args) as string[]) : [];
}

/** The Node.js flags the image starts the operator with (the Dockerfile's ENTRYPOINT). */
export const imageNodeFlags = entrypointNodeFlags(dockerfileEntrypoint());

/** As the image's ENTRYPOINT starts it, from the checkout. */
export const defaultOperatorLaunch: OperatorLaunch = { command: process.execPath, args: [...imageNodeFlags, 'bin/coder-k8s.js'] };

let counter = 0;

/** Starts `coder-k8s --app=<app>` (controller by default) with free ports; waits for /readyz unless `waitReady` is false. */
export async function startOperator(
  cp: ControlPlane,
  kubeconfig: string,
  {
    args = [],
    waitReady = true,
    env = {},
    launch = defaultOperatorLaunch,
    app = 'controller',
  }: { args?: string[]; waitReady?: boolean; env?: Record<string, string>; launch?: OperatorLaunch; app?: string } = {},
): Promise<RunningOperator> {
  const [metricsPort, probesPort] = [await freePort(), await freePort()];
  const logFile = join(mkdtempSync(join(cp.dir, 'operator-')), `operator-${++counter}.log`);
  const proc = new ManagedProcess({
    name: `coder-k8s operator ${counter}`,
    command: launch.command,
    args: [
      ...launch.args,
      `--app=${app}`,
      `--kubeconfig=${kubeconfig}`,
      // Plain HTTP on loopback, so tests and benches read metrics without a token; the HTTPS path with
      // TokenReview and SubjectAccessReview is tested on its own (runtime-metrics-auth.test.ts).
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      '--metrics-secure=false',
      `--health-probe-bind-address=127.0.0.1:${probesPort}`,
      ...args,
    ],
    env: { ...(launch.env ?? process.env), POD_NAMESPACE: operatorNamespace, ...env },
    cwd: launch.cwd,
    uid: launch.uid,
    gid: launch.gid,
    logFile,
  });
  const probesUrl = `http://127.0.0.1:${probesPort}`;
  if (waitReady) await waitUntilReady(proc, `${probesUrl}/readyz`, () => answers200(`${probesUrl}/readyz`), 60_000);
  return { process: proc, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, probesUrl, logFile };
}
