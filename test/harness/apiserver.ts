// kube-apiserver for the test control plane: RBAC on, front-proxy flags for aggregation, audit log.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { binaries } from './binaries.ts';
import type { Pki } from './pki.ts';
import { answers200 } from './probe.ts';
import { ManagedProcess, waitUntilReady } from './process.ts';

export interface ApiServerOptions {
  dir: string;
  pki: Pki;
  etcdUrl: string;
  port: number;
  auditLogFile: string;
  /** Without kube-controller-manager no namespace gets a `default` ServiceAccount. */
  serviceAccountAdmission: boolean;
  /** Serve /debug/pprof (to system:masters), for a bench that profiles the server. */
  profiling?: boolean;
}

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  # Whose access a SubjectAccessReview asked about, for tests of the servers that delegate authorization.
  - level: Request
    resources:
      - group: authorization.k8s.io
        resources: [subjectaccessreviews]
  - level: Metadata
`;

export async function startApiServer(opts: ApiServerOptions): Promise<ManagedProcess> {
  const { dir, pki, port } = opts;
  const policyFile = join(dir, 'audit-policy.yaml');
  await writeFile(policyFile, auditPolicy);
  const url = `https://127.0.0.1:${port}`;
  const proc = new ManagedProcess({
    name: 'kube-apiserver',
    command: binaries.kubeApiserver(),
    logFile: join(dir, 'kube-apiserver.log'),
    args: [
      `--etcd-servers=${opts.etcdUrl}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      '--advertise-address=127.0.0.1',
      '--endpoint-reconciler-type=none',
      `--tls-cert-file=${pki.apiserverCert.certFile}`,
      `--tls-private-key-file=${pki.apiserverCert.keyFile}`,
      `--cert-dir=${pki.dir}`,
      `--client-ca-file=${pki.caFile}`,
      '--authorization-mode=RBAC',
      `--service-account-issuer=${url}/`,
      `--service-account-key-file=${pki.serviceAccountPubFile}`,
      `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--allow-privileged=true',
      `--requestheader-client-ca-file=${pki.frontProxyCaFile}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--proxy-client-cert-file=${pki.frontProxyClient.certFile}`,
      `--proxy-client-key-file=${pki.frontProxyClient.keyFile}`,
      `--audit-policy-file=${policyFile}`,
      `--audit-log-path=${opts.auditLogFile}`,
      '--audit-log-format=json',
      '--audit-log-mode=blocking',
      '--audit-log-maxsize=0',
      `--profiling=${opts.profiling ?? false}`,
      ...(opts.serviceAccountAdmission ? [] : ['--disable-admission-plugins=ServiceAccount']),
    ],
  });
  await waitUntilReady(proc, `${url}/readyz`, () => answers200(`${url}/readyz`, pki.caPem), 90_000);
  return proc;
}
