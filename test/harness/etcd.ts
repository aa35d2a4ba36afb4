// etcd for the test control plane: one member on loopback, data in memory-backed storage.
import { join } from 'node:path';
import { binaries } from './binaries.ts';
import { freePort } from './ports.ts';
import { answers200 } from './probe.ts';
import { ManagedProcess, waitUntilReady } from './process.ts';

export interface Etcd {
  url: string;
  process: ManagedProcess;
}

export async function startEtcd(dir: string, dataDir: string): Promise<Etcd> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const proc = new ManagedProcess({
    name: 'etcd',
    command: binaries.etcd(),
    logFile: join(dir, 'etcd.log'),
    args: [
      '--name=node0',
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=node0=${peer}`,
      '--unsafe-no-fsync=true',
      '--auto-compaction-retention=1',
      '--quota-backend-bytes=4294967296',
      '--log-level=warn',
    ],
  });
  await waitUntilReady(proc, `${url}/readyz`, () => answers200(`${url}/readyz`), 30_000);
  return { url, process: proc };
}
