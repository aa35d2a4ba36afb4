// A real Kubernetes control plane on loopback for tests: etcd, kube-apiserver with RBAC and an audit
// log, and optionally kube-controller-manager, kube-scheduler and kwok with one fake Node.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from './apiserver.ts';
import { readAuditLog, type AuditEvent, type AuditFilter } from './audit.ts';
import { startControllerManager, startScheduler } from './controllers.ts';
import { startEtcd } from './etcd.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { startKwok } from './kwok.ts';
import { createPki, type Pki } from './pki.ts';
import { freePort } from './ports.ts';
import type { ManagedProcess } from './process.ts';
import { registerCleanup } from './shutdown.ts';

export interface ControlPlaneOptions {
  /** kube-controller-manager: garbage collection, Deployment → ReplicaSet → Pod, namespace deletion. */
  controllers?: boolean;
  /** kube-scheduler plus kwok with one fake Node, so pods run and Deployments become Available. Implies controllers. */
  kwok?: boolean;
  /** Serve kube-apiserver's /debug/pprof, for a bench that profiles it. */
  profiling?: boolean;
  /** Keep the temp dir (logs, PKI) and the etcd data after stop(), for debugging. Also set by CODER_K8S_KEEP_HARNESS=1. */
  keepDir?: boolean;
}

export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** http://127.0.0.1:<port> of etcd, for tests that act on storage (e.g. compaction). */
  readonly etcdUrl: string;
  readonly dir: string;
  readonly caPem: string;
  readonly auditLogFile: string;
  /** Kubeconfig of `admin` in group system:masters. */
  readonly adminKubeconfigPath: string;
  /** A KubeConfig loaded from the admin kubeconfig. */
  adminConfig(): KubeConfig;
  /**
   * A kubeconfig with a TokenRequest token of the ServiceAccount (created with its namespace if missing),
   * so a process runs with exactly the RBAC bound to it.
   */
  operatorKubeconfig(saNamespace: string, saName: string): Promise<string>;
  /** A kubeconfig of a client certificate for `user` in `groups`. */
  userKubeconfig(user: string, groups?: string[]): Promise<string>;
  /** The cluster's certificates and the minting of client certificates (front-proxy ones too). */
  readonly pki: Pki;
  /** Completed requests from the audit log. */
  auditEvents(filter?: AuditFilter): Promise<AuditEvent[]>;
  /**
   * Stops kube-apiserver (its process exits, so its watches break) and starts it again on the same port
   * and etcd data, after `whileDown` resolves: the server stays away as long as a test needs it to.
   */
  restartApiServer(options?: { whileDown?: () => Promise<unknown> }): Promise<void>;
  stop(): Promise<void>;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const withKwok = options.kwok ?? false;
  const withControllers = (options.controllers ?? false) || withKwok;
  const keepDir = options.keepDir ?? process.env.CODER_K8S_KEEP_HARNESS === '1';
  const dir = await mkdtemp(join(tmpdir(), 'coder-k8s-cp-'));
  // etcd data goes to memory-backed storage when the machine has it.
  const dataRoot = await mkdtemp(join(process.platform === 'linux' ? '/dev/shm' : tmpdir(), 'coder-k8s-etcd-'));
  const processes: ManagedProcess[] = [];
  const stop = async () => {
    unregisterCleanup();
    for (const proc of processes.reverse()) await proc.stop();
    processes.length = 0;
    if (keepDir) {
      console.error(`control plane stopped; kept (CODER_K8S_KEEP_HARNESS=1): ${dir} and etcd data ${dataRoot}`);
      return;
    }
    await rm(dataRoot, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  };
  const unregisterCleanup = registerCleanup(stop);

  try {
    const pkiDir = join(dir, 'pki');
    await mkdir(pkiDir);
    const pki: Pki = await createPki(pkiDir);
    const etcd = await startEtcd(dir, join(dataRoot, 'data'));
    processes.push(etcd.process);

    const port = await freePort();
    const server = `https://127.0.0.1:${port}`;
    const auditLogFile = join(dir, 'audit.log');
    const apiServerOptions = {
      dir,
      pki,
      etcdUrl: etcd.url,
      port,
      auditLogFile,
      serviceAccountAdmission: withControllers,
      profiling: options.profiling,
    };
    let apiserver = await startApiServer(apiServerOptions);
    processes.push(apiserver);

    const adminKubeconfigPath = await writeKubeconfig(join(dir, 'admin.kubeconfig'), server, pki.caPem, 'admin', {
      cert: await pki.clientCert('admin', ['system:masters']),
    });
    const adminConfig = () => {
      const kc = new KubeConfig();
      kc.loadFromFile(adminKubeconfigPath);
      return kc;
    };
    const core = adminConfig().makeApiClient(CoreV1Api);

    if (withControllers) processes.push(await startControllerManager(dir, pki, adminKubeconfigPath));
    if (withKwok) {
      processes.push(await startScheduler(dir, adminKubeconfigPath));
      processes.push(await startKwok(dir, adminKubeconfigPath, core, pki.apiserverCert));
    }

    return {
      server,
      etcdUrl: etcd.url,
      dir,
      caPem: pki.caPem,
      pki,
      auditLogFile,
      adminKubeconfigPath,
      adminConfig,
      async operatorKubeconfig(saNamespace, saName) {
        await core.createNamespace({ body: { metadata: { name: saNamespace } } }).catch(ignoreConflict);
        await core.createNamespacedServiceAccount({ namespace: saNamespace, body: { metadata: { name: saName } } }).catch(ignoreConflict);
        const request = await core.createNamespacedServiceAccountToken({
          name: saName,
          namespace: saNamespace,
          body: { spec: { audiences: [], expirationSeconds: 86_400 } },
        });
        const token = request.status?.token;
        if (!token) throw new Error(`TokenRequest for ${saNamespace}/${saName} returned no token`);
        return writeKubeconfig(
          join(dir, `sa-${saNamespace}-${saName}.kubeconfig`),
          server,
          pki.caPem,
          `system:serviceaccount:${saNamespace}:${saName}`,
          { token },
        );
      },
      async userKubeconfig(user, groups = []) {
        return writeKubeconfig(join(dir, `user-${user.replace(/[^A-Za-z0-9_-]/g, '_')}.kubeconfig`), server, pki.caPem, user, {
          cert: await pki.clientCert(user, groups),
        });
      },
      auditEvents: (filter) => readAuditLog(auditLogFile, filter),
      async restartApiServer({ whileDown } = {}) {
        await apiserver.stop();
        await whileDown?.();
        const index = processes.indexOf(apiserver);
        apiserver = await startApiServer(apiServerOptions);
        processes[index] = apiserver;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function ignoreConflict(err: unknown): void {
  if ((err as { code?: number }).code !== 409) throw err;
}
