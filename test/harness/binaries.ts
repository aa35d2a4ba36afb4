// Where the harness finds the control-plane binaries that test/harness/build.sh caches.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function readVersions(): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const line of readFileSync(join(here, 'versions.env'), 'utf8').split('\n')) {
    const match = /^([A-Z_]+)=(?:"([^"]*)"|(\S+))/.exec(line.trim());
    if (match) versions[match[1]!] = match[2] ?? match[3]!;
  }
  return versions;
}

const versions = readVersions();
export const kubernetesVersion = versions.KUBERNETES_VERSION!;
export const etcdVersion = versions.ETCD_VERSION!;
export const kwokVersion = versions.KWOK_VERSION!;
export const helmVersion = versions.HELM_VERSION!;
export const coderVersion = versions.CODER_VERSION!;
/** Every Coder release harness:build builds a server of (CODER_VERSIONS); coderVersion is the default. */
export const coderVersions = versions.CODER_VERSIONS!.split(/\s+/).filter(Boolean);
/** The Coder releases whose swagger.json and dump.sql harness:build keeps (CODER_SOURCE_VERSIONS). */
export const coderSourceVersions = versions.CODER_SOURCE_VERSIONS!.split(/\s+/).filter(Boolean);
export const gatewayApiVersion = versions.GATEWAY_API_VERSION!;

const cacheDir = process.env.CODER_K8S_CACHE ?? join(homedir(), '.cache', 'coder-k8s');

/** Where test/harness/build.sh puts `name` of `component` at `version`, built or not. */
export function binaryPath(component: string, version: string, name: string): string {
  return join(cacheDir, component, version, name);
}

/** Where test/harness/build.sh keeps Coder's source files of one release. */
export function coderSourcesDir(version: string): string {
  return join(cacheDir, 'coder-sources', version);
}

function binary(component: string, version: string, name: string): string {
  const path = binaryPath(component, version, name);
  if (!existsSync(path)) {
    throw new Error(`${name} ${version} is not built (${path} is missing); run \`npm run harness:build\``);
  }
  return path;
}

/** A file of Coder's source kept by harness:build for one release: swagger.json, dump.sql or the migrations/ directory. */
export function coderSource(version: string, file: 'swagger.json' | 'dump.sql' | 'migrations'): string {
  return binary('coder-sources', version, file);
}

/** A standard CRD of the Gateway API release harness:build keeps (GATEWAY_API_VERSION), e.g. `httproutes`. */
export function gatewayApiCrd(plural: 'httproutes' | 'gateways' | 'gatewayclasses'): string {
  return binary('gateway-api', gatewayApiVersion, `gateway.networking.k8s.io_${plural}.yaml`);
}

export const binaries = {
  etcd: () => binary('etcd', etcdVersion, 'etcd'),
  kubeApiserver: () => binary('kubernetes', kubernetesVersion, 'kube-apiserver'),
  kubeControllerManager: () => binary('kubernetes', kubernetesVersion, 'kube-controller-manager'),
  kubeScheduler: () => binary('kubernetes', kubernetesVersion, 'kube-scheduler'),
  kwok: () => binary('kwok', kwokVersion, 'kwok'),
  helm: () => binary('helm', helmVersion, 'helm'),
  coder: (version = coderVersion) => binary('coder', version, 'coder'),
  coderEchoTemplate: () => binary('coder', coderVersion, 'coder-echo-template'),
  kwokStages: () => {
    const dir = join(cacheDir, 'kwok', kwokVersion, 'stages');
    binary('kwok', kwokVersion, 'stages');
    return ['node-initialize', 'node-heartbeat-with-lease', 'pod-ready', 'pod-complete', 'pod-delete'].map((stage) =>
      join(dir, `${stage}.yaml`),
    );
  },
};
