// The aggregated API server registered with a harness control plane as deploy/apiserver-apiservice.yaml
// does, reached on loopback through an ExternalName Service (Endpoints refuse loopback addresses; the
// aggregator resolves an ExternalName to its host name): kubectl → kube-apiserver → aggregator → the
// operator (--app=aggregated-apiserver, with --coder-url and --coder-session-token-file) → the Coder API
// double or the real Coder server.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import type { ControlPlane } from './control-plane.ts';
import { kubectlOk } from './kubectl.ts';
import { installOperatorRbac, operatorNamespace, startOperator, type RunningOperator } from './operator.ts';
import { freePort } from './ports.ts';
import { eventually } from './wait.ts';

export const apiServiceName = 'v1alpha1.aggregation.coder.com';
const trustConfigMap = ['-n', 'kube-system', 'configmap', 'extension-apiserver-authentication'];

export interface AggregatedApi {
  operator: RunningOperator;
  /** The operator's HTTPS port on 127.0.0.1. */
  port: number;
}

/**
 * Registers the APIService as deploy/apiserver-apiservice.yaml does, with an ExternalName Service to
 * localhost:`port` where the operator will listen.
 */
export async function registerApiService(cp: ControlPlane, port: number): Promise<void> {
  const apiService = parseYaml(readFileSync('deploy/apiserver-apiservice.yaml', 'utf8'));
  apiService.spec.service.port = port;
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: apiService.spec.service.name, namespace: operatorNamespace },
    spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port, targetPort: port }] },
  };
  await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', operatorNamespace]).catch(() => undefined);
  await kubectlOk(cp.adminKubeconfigPath, ['apply', '-f', '-'], `${stringify(service)}---\n${stringify(apiService)}`);
}

/** Waits until the APIService is Available; the operator's log tail in the error otherwise. */
export async function waitApiServiceAvailable(cp: ControlPlane, operator: RunningOperator): Promise<void> {
  try {
    await kubectlOk(cp.adminKubeconfigPath, ['wait', '--for=condition=Available', `apiservice/${apiServiceName}`, '--timeout=90s']);
  } catch (err) {
    throw new Error(`${(err as Error).message}\noperator log:\n${readFileSync(operator.logFile, 'utf8').slice(-4000)}`);
  }
}

/**
 * Waits until kube-apiserver's OpenAPI v3 index lists the group (it picks up an aggregated server's
 * document on its own schedule, a second or more after Available), and returns kubectl flags that make
 * kubectl read that index anew. kubectl decides from the index whether the server validates fields and
 * what `explain` shows, and keeps the index in its HTTP cache. The aggregator serves the index without an
 * ETag and with Last-Modified set to the second it answers, so a kubectl revalidating within the second
 * of an earlier call gets 304 and keeps the index from before the group was in it.
 */
export async function openApiV3Listed(cp: ControlPlane): Promise<string[]> {
  await eventually(
    'the group in the OpenAPI v3 index',
    async () => (await kubectlOk(cp.adminKubeconfigPath, ['get', '--raw', '/openapi/v3'])).includes('apis/aggregation.coder.com/v1alpha1'),
    { timeoutMs: 120_000, intervalMs: 1_000 },
  );
  return [`--cache-dir=${mkdtempSync(join(cp.dir, 'kubectl-cache-'))}`];
}

/**
 * Registers the APIService, starts the operator serving `namespace` from `coder` with `token` (and `env`),
 * and waits until Available. `args` are added to (and win over) the operator's flags, such as a shorter
 * --coder-request-timeout. `kubeServer` replaces kube-apiserver's URL in the operator's kubeconfig (a
 * proxy in front of it).
 */
export async function startAggregatedApi(
  cp: ControlPlane,
  coder: { url: string },
  token: string,
  namespace: string,
  { args = [], env, kubeServer }: { args?: string[]; env?: Record<string, string>; kubeServer?: string } = {},
): Promise<AggregatedApi> {
  let kubeconfig = await installOperatorRbac(cp);
  if (kubeServer) kubeconfig = withServer(kubeconfig, kubeServer);
  const port = await freePort();
  const tokenFile = join(mkdtempSync(join(cp.dir, 'coder-session-')), 'token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  await registerApiService(cp, port);
  const operator = await startOperator(cp, kubeconfig, {
    waitReady: false,
    app: 'aggregated-apiserver',
    ...(env ? { env } : {}),
    args: [
      `--coder-url=${coder.url}`,
      // As a Secret mounted into the pod would give it: the token stays out of the command line.
      `--coder-session-token-file=${tokenFile}`,
      `--coder-namespace=${namespace}`,
      '--coder-request-timeout=10s',
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      '--log-level=debug',
      ...args,
    ],
  });
  try {
    await waitApiServiceAvailable(cp, operator);
  } catch (err) {
    await operator.process.stop();
    throw err;
  }
  return { operator, port };
}

/** A copy of `kubeconfig` whose clusters point at `server`. */
function withServer(kubeconfig: string, server: string): string {
  const config = parseYaml(readFileSync(kubeconfig, 'utf8'));
  for (const cluster of config.clusters) cluster.cluster.server = server;
  const path = kubeconfig.replace(/(\.kubeconfig)?$/, '-via-proxy.kubeconfig');
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}

/**
 * Edits the data of kube-system/extension-apiserver-authentication (the front-proxy trust the server
 * watches); returns what puts the original data back.
 */
export async function editFrontProxyTrust(cp: ControlPlane, edit: (data: Record<string, string>) => void): Promise<() => Promise<void>> {
  const read = async () => JSON.parse(await kubectlOk(cp.adminKubeconfigPath, ['get', ...trustConfigMap, '-o', 'json']));
  const replace = (cm: unknown) => kubectlOk(cp.adminKubeconfigPath, ['replace', '-f', '-'], JSON.stringify(cm));
  const original = await read();
  const edited = structuredClone(original);
  edit(edited.data);
  await replace(edited);
  return async () => {
    const current = await read();
    current.data = original.data;
    await replace(current);
  };
}

/** A Role and RoleBinding letting `subjects` (YAML flow maps) get and list coderworkspaces in `namespace`. */
export function workspaceReaderRbac(namespace: string, subjects: string[]): string {
  return `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: workspace-reader, namespace: ${namespace}}
rules:
  - apiGroups: [aggregation.coder.com]
    resources: [coderworkspaces]
    verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: workspace-readers, namespace: ${namespace}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: workspace-reader}
subjects:
${subjects.map((s) => `  - ${s}`).join('\n')}
`;
}
