// The operator's connection to the API server from a kubeconfig or the pod's ServiceAccount, read
// without @kubernetes/client-node: loading that library costs the process about 80 MiB and a second
// at start. Covers what an operator is given (in-cluster, or a kubeconfig with a token, a token file or
// a client certificate); for anything else (exec or auth-provider plugins, proxies, several files in
// KUBECONFIG, a file that does not parse) it answers undefined and the caller uses the full library.
import type { RequestOptions } from 'node:https';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fs } from './builtins.ts';
import { readYamlFile } from './yaml-file.ts';

/** What KubeHttp needs of a kubeconfig; @kubernetes/client-node's KubeConfig has the same shape. */
export interface KubeConnectionConfig {
  getCurrentCluster(): { server: string } | null;
  getCurrentUser(): { authProvider?: { config?: Record<string, unknown> } } | null;
  applyToHTTPSOptions(options: RequestOptions): Promise<void>;
}

const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

interface Named<T> {
  name?: string;
  cluster?: T;
  user?: T;
  context?: T;
}
interface ClusterEntry {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
}
interface UserEntry {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  [other: string]: unknown;
}
interface KubeconfigFile {
  'current-context'?: string;
  contexts?: Named<{ cluster?: string; user?: string }>[];
  clusters?: Named<ClusterEntry>[];
  users?: Named<UserEntry>[];
}

/** User fields this loader handles; any other (exec, auth-provider, username, ...) needs the full library. */
const handledUserFields = new Set(['token', 'tokenFile', 'client-certificate', 'client-certificate-data', 'client-key', 'client-key-data']);

class SimpleKubeConfig implements KubeConnectionConfig {
  private readonly server: string;
  private readonly tls: Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;
  private readonly token?: string;
  private readonly tokenFile?: string;

  constructor(server: string, tls: SimpleKubeConfig['tls'], auth: { token?: string; tokenFile?: string }) {
    this.server = server;
    this.tls = tls;
    this.token = auth.token;
    this.tokenFile = auth.tokenFile;
  }

  getCurrentCluster() {
    return { server: this.server };
  }

  /** A token file shows as client-node shows the in-cluster one, which KubeHttp reads again as it rotates. */
  getCurrentUser() {
    return this.tokenFile ? { authProvider: { config: { tokenFile: this.tokenFile } } } : {};
  }

  async applyToHTTPSOptions(options: RequestOptions): Promise<void> {
    Object.assign(options, this.tls);
    if (this.token) options.headers = { ...(options.headers as Record<string, string>), Authorization: `Bearer ${this.token}` };
  }
}

function fileOrData(dir: string, file: string | undefined, data: string | undefined): Buffer | undefined {
  if (data) return Buffer.from(data, 'base64');
  if (file) return fs.readFileSync(isAbsolute(file) ? file : join(dir, file));
  return undefined;
}

function fromFile(path: string): SimpleKubeConfig | undefined {
  let config: KubeconfigFile;
  try {
    config = readYamlFile<KubeconfigFile>(path);
  } catch {
    return undefined;
  }
  const context = config.contexts?.find((c) => c.name === config['current-context'])?.context;
  const cluster = config.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = config.users?.find((u) => u.name === context?.user)?.user ?? {};
  if (!cluster?.server || cluster['proxy-url'] || Object.keys(user).some((k) => !handledUserFields.has(k))) return undefined;
  const dir = dirname(path);
  try {
    const tls = {
      ca: fileOrData(dir, cluster['certificate-authority'], cluster['certificate-authority-data']),
      cert: fileOrData(dir, user['client-certificate'], user['client-certificate-data']),
      key: fileOrData(dir, user['client-key'], user['client-key-data']),
      ...(cluster['insecure-skip-tls-verify'] ? { rejectUnauthorized: false } : {}),
      ...(cluster['tls-server-name'] ? { servername: cluster['tls-server-name'] } : {}),
    };
    const tokenFile = user.tokenFile && (isAbsolute(user.tokenFile) ? user.tokenFile : join(dir, user.tokenFile));
    return new SimpleKubeConfig(cluster.server, tls, { token: user.token, tokenFile });
  } catch {
    return undefined;
  }
}

function inCluster(): SimpleKubeConfig | undefined {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  if (!host || !port || !fs.existsSync(join(serviceAccountDir, 'token'))) return undefined;
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new SimpleKubeConfig(
    server,
    { ca: fs.readFileSync(join(serviceAccountDir, 'ca.crt')) },
    { tokenFile: join(serviceAccountDir, 'token') },
  );
}

/**
 * The connection `path` (or else $KUBECONFIG, ~/.kube/config, the pod's ServiceAccount, in client-go's
 * order) describes, when this loader covers it; undefined when the full library must read it.
 */
export function loadSimpleKubeConfig(path: string | undefined): KubeConnectionConfig | undefined {
  if (path) return fromFile(path);
  const fromEnv = process.env.KUBECONFIG;
  if (fromEnv) return fromEnv.includes(':') ? undefined : fromFile(fromEnv);
  const home = join(homedir(), '.kube', 'config');
  if (fs.existsSync(home)) return fromFile(home);
  return inCluster();
}
