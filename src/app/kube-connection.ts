// Where the binary finds its cluster: the kubeconfig (--kubeconfig, KUBECONFIG, ~/.kube/config or the pod's
// ServiceAccount), each failure one line naming the file and the fix, and the operator's own namespace.
import type { KubeConfig } from '@kubernetes/client-node';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fs } from '../runtime/builtins.ts';
import { loadSimpleKubeConfig, type KubeConnectionConfig } from '../runtime/kube-config.ts';
import { StartupError } from '../runtime/startup-error.ts';

const serviceAccountNamespaceFile = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
const serviceAccountTokenFile = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** Where the client library would look, in its order; false when there is nothing to load. */
function anyKubeConfigSource(): boolean {
  if (process.env.KUBECONFIG) return true;
  if (fs.existsSync(join(homedir(), '.kube', 'config'))) return true;
  return Boolean(process.env.KUBERNETES_SERVICE_HOST) && fs.existsSync(serviceAccountTokenFile);
}

/** The full client library, loaded on first call (tens of MiB): only modes and kubeconfigs that need it pay for it. */
const clientLibrary = () => createRequire(import.meta.url)('@kubernetes/client-node') as typeof import('@kubernetes/client-node');

export function loadKubeConfig(path: string | undefined): KubeConfig {
  // With nothing to load the library falls back to http://localhost, which fails later with a stack trace.
  if (!path && !anyKubeConfigSource())
    throw new StartupError(
      'no Kubernetes cluster configured (no --kubeconfig, no KUBECONFIG, no ~/.kube/config, not in a pod): ' +
        'pass --kubeconfig=PATH or set KUBECONFIG',
    );
  const kc = new (clientLibrary().KubeConfig)();
  try {
    if (path) kc.loadFromFile(path);
    else kc.loadFromDefault();
  } catch (err) {
    throw new StartupError(kubeConfigErrorMessage(path ?? process.env.KUBECONFIG, err, path ? '--kubeconfig' : 'KUBECONFIG'));
  }
  if (!kc.getCurrentCluster())
    throw new StartupError(
      'the kubeconfig has no current cluster: set current-context to a context with a cluster, or pass another --kubeconfig',
    );
  return kc;
}

/** The controller's connection: read without the client library when it is plain (kube-config.ts), else as loadKubeConfig does. */
export function loadConnection(path: string | undefined): KubeConnectionConfig {
  if (path || anyKubeConfigSource()) {
    const simple = loadSimpleKubeConfig(path);
    if (simple) return simple;
  }
  return loadKubeConfig(path);
}

/**
 * One line naming the file and where it is wrong. The YAML parser's own message quotes the lines around
 * the error, which may hold a token or a client key, so only its reason and position are kept.
 */
export function kubeConfigErrorMessage(path: string | undefined, err: unknown, givenBy = '--kubeconfig'): string {
  const e = err as { name?: string; reason?: string; mark?: { line?: number; column?: number }; code?: string; path?: string };
  // KUBECONFIG may list several files: a read error names the one that failed.
  const shown = typeof e?.path === 'string' ? e.path : path;
  const file = shown ? `kubeconfig ${shown}` : 'the kubeconfig';
  if (e?.name === 'YAMLException') {
    const at = e.mark?.line !== undefined ? ` at line ${e.mark.line + 1}, column ${(e.mark.column ?? 0) + 1}` : '';
    return `${file} is not valid YAML${at}: ${e.reason ?? 'syntax error'}`;
  }
  if (e?.code === 'ENOENT') return `${file} does not exist: check ${givenBy}, or leave it out to use ~/.kube/config`;
  if (e?.code === 'EACCES') return `${file} cannot be read (permission denied): make it readable by the user running coder-k8s`;
  if (e?.code === 'EISDIR') return `${file} is a directory: ${givenBy} names a kubeconfig file`;
  if (typeof e?.code === 'string') return `${file} cannot be read (${e.code})`;
  return `${file} is not a usable kubeconfig`;
}

/** The operator's own namespace (POD_NAMESPACE, else the ServiceAccount's), where its Lease and serving certificate live. */
export function ownNamespace(): string | undefined {
  return (
    process.env.POD_NAMESPACE ??
    (fs.existsSync(serviceAccountNamespaceFile) ? fs.readFileSync(serviceAccountNamespaceFile, 'utf8').trim() : undefined)
  );
}
