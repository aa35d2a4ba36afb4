// kube-controller-manager and kube-scheduler: garbage collection, Deployments, namespaces, binding.
import { join } from 'node:path';
import { binaries } from './binaries.ts';
import type { Pki } from './pki.ts';
import { freePort } from './ports.ts';
import { answers200 } from './probe.ts';
import { ManagedProcess, waitUntilReady } from './process.ts';

/** Starts a component that serves /healthz on a self-signed port and talks to the API server as admin. */
async function startComponent(dir: string, name: string, command: string, kubeconfig: string, args: string[]): Promise<ManagedProcess> {
  const port = await freePort();
  const proc = new ManagedProcess({
    name,
    command,
    logFile: join(dir, `${name}.log`),
    args: [
      `--kubeconfig=${kubeconfig}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--authorization-always-allow-paths=/healthz,/readyz,/livez',
      ...args,
    ],
  });
  const healthz = `https://127.0.0.1:${port}/healthz`;
  await waitUntilReady(proc, healthz, () => answers200(healthz, 'self-signed'), 60_000);
  return proc;
}

export function startControllerManager(dir: string, pki: Pki, kubeconfig: string): Promise<ManagedProcess> {
  return startComponent(dir, 'kube-controller-manager', binaries.kubeControllerManager(), kubeconfig, [
    '--controllers=*',
    `--service-account-private-key-file=${pki.serviceAccountKeyFile}`,
    `--root-ca-file=${pki.caFile}`,
    '--concurrent-gc-syncs=5',
    '--concurrent-deployment-syncs=10',
    '--concurrent-replicaset-syncs=10',
    '--kube-api-qps=200',
    '--kube-api-burst=400',
  ]);
}

export function startScheduler(dir: string, kubeconfig: string): Promise<ManagedProcess> {
  return startComponent(dir, 'kube-scheduler', binaries.kubeScheduler(), kubeconfig, []);
}
