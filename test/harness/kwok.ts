// kwok: one fake Node that stays Ready, and pods bound to it that become Running and Ready. The node's
// address is 127.0.0.1 and kwok serves its kubelet port there, so `kubectl logs` (kube-apiserver → node)
// answers every container's log with the lines of podLogFile(dir).
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binaries } from './binaries.ts';
import type { ClientCert } from './pki.ts';
import { freePort } from './ports.ts';
import { ManagedProcess, waitUntilReady } from './process.ts';

export const fakeNodeName = 'kwok-node-0';

/** What every container of the fake node logs. */
export const podLogLines = ['kwok fake container log line 1', 'kwok fake container log line 2'];

/** The log file kwok serves for every container, in the CRI format the kubelet reads. */
export const podLogFile = (dir: string) => join(dir, 'kwok-container.log');

function writeLogConfig(dir: string): string {
  writeFileSync(podLogFile(dir), podLogLines.map((line, i) => `2026-12-01T10:00:0${i}.000000000Z stdout F ${line}\n`).join(''));
  const config = join(dir, 'kwok-logs.yaml');
  writeFileSync(
    config,
    [
      'apiVersion: kwok.x-k8s.io/v1alpha1',
      'kind: ClusterLogs',
      'metadata:',
      '  name: every-container',
      'spec:',
      '  selector: {}',
      '  logs:',
      '    - containers: []',
      `      logsFile: ${JSON.stringify(podLogFile(dir))}`,
      '      follow: false',
      '',
    ].join('\n'),
  );
  return config;
}

/** `serving`: the certificate kwok's kubelet port presents (kube-apiserver does not verify it without --kubelet-certificate-authority). */
export async function startKwok(dir: string, kubeconfig: string, core: CoreV1Api, serving: ClientCert): Promise<ManagedProcess> {
  const kubeletPort = await freePort();
  const proc = new ManagedProcess({
    name: 'kwok',
    command: binaries.kwok(),
    logFile: join(dir, 'kwok.log'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      '--manage-all-nodes=true',
      '--node-lease-duration-seconds=40',
      '--cidr=10.244.0.0/16',
      '--node-ip=127.0.0.1',
      `--node-port=${kubeletPort}`,
      `--server-address=127.0.0.1:${kubeletPort}`,
      `--tls-cert-file=${serving.certFile}`,
      `--tls-private-key-file=${serving.keyFile}`,
      ...binaries.kwokStages().flatMap((stage) => ['-c', stage]),
      '-c',
      writeLogConfig(dir),
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
