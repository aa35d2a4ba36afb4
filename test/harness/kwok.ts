// kwok: one fake Node that stays Ready, and pods bound to it that become Running and Ready.
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import { join } from 'node:path';
import { binaries } from './binaries.ts';
import { ManagedProcess, waitUntilReady } from './process.ts';

export const fakeNodeName = 'kwok-node-0';

export async function startKwok(dir: string, kubeconfig: string, core: CoreV1Api): Promise<ManagedProcess> {
  const proc = new ManagedProcess({
    name: 'kwok',
    command: binaries.kwok(),
    logFile: join(dir, 'kwok.log'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      '--manage-all-nodes=true',
      '--node-lease-duration-seconds=40',
      '--cidr=10.244.0.0/16',
      ...binaries.kwokStages().flatMap((stage) => ['-c', stage]),
    ],
  });
  const node: V1Node = {
    metadata: {
      name: fakeNodeName,
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'kwok.x-k8s.io/node': 'fake' },
      labels: { 'kubernetes.io/hostname': fakeNodeName, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', type: 'kwok' },
    },
    status: {
      allocatable: { cpu: '1000', memory: '4Ti', pods: '5000' },
      capacity: { cpu: '1000', memory: '4Ti', pods: '5000' },
    },
  };
  await core.createNode({ body: node });
  await waitUntilReady(
    proc,
    `Node ${fakeNodeName} Ready without taints`,
    async () => {
      const current = await core.readNode({ name: fakeNodeName });
      const ready = current.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      return Boolean(ready) && !current.spec?.taints?.length;
    },
    60_000,
  );
  return proc;
}
