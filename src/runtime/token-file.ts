// A bearer token kept in a file (a projected ServiceAccount token, a kubeconfig's tokenFile), read
// again about once a minute as client-go does, so a rotated token is used before the old one expires.
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { fs, util } from './builtins.ts';
import { readYamlFile } from './yaml-file.ts';

const readFile = util.promisify(fs.readFile);

export const tokenRefreshMs = 60_000;

export class TokenFile {
  readonly path: string;
  private readonly refreshMs: number;
  private cached?: { token: string; readAt: number };
  private reading?: Promise<string>;

  constructor(path: string, refreshMs = tokenRefreshMs) {
    this.path = path;
    this.refreshMs = refreshMs;
  }

  /** The token, from the file when the last read is older than the refresh period. */
  token(): Promise<string> {
    if (this.cached && Date.now() - this.cached.readAt < this.refreshMs) return Promise.resolve(this.cached.token);
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<string> {
    try {
      const token = (await readFile(this.path, 'utf8')).trim();
      if (!token) throw new Error('the file is empty');
      this.cached = { token, readAt: Date.now() };
      return token;
    } catch (err) {
      // A failed re-read (the kubelet swapping the file, say) keeps the token that worked, as client-go.
      if (this.cached) {
        this.cached = { ...this.cached, readAt: Date.now() };
        return this.cached.token;
      }
      throw new Error(
        `cannot read the API server token file ${this.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
}

interface KubeconfigFile {
  'current-context'?: string;
  contexts?: { name?: string; context?: { user?: string } }[];
  users?: { name?: string; user?: { tokenFile?: string; 'token-file'?: string } }[];
}

/**
 * The tokenFile of the current user in the kubeconfig files (`--kubeconfig`, else $KUBECONFIG, else
 * ~/.kube/config), resolved against the file that names it; undefined when it uses none. The
 * @kubernetes/client-node loader reads such a file once and keeps no path, so it is looked up here.
 */
export function kubeconfigTokenFile(explicitPath: string | undefined): string | undefined {
  const paths = explicitPath
    ? [explicitPath]
    : process.env.KUBECONFIG
      ? process.env.KUBECONFIG.split(delimiter).filter(Boolean)
      : [join(homedir(), '.kube', 'config')];
  const files: { path: string; config: KubeconfigFile }[] = [];
  for (const path of paths) {
    try {
      files.push({ path, config: readYamlFile<KubeconfigFile>(path) });
    } catch {
      // Missing or unreadable files are the loader's to report.
    }
  }
  // As client-go merges: the first file that sets a value wins.
  const currentContext = files.map((f) => f.config['current-context']).find(Boolean);
  if (!currentContext) return undefined;
  const userName = files.flatMap((f) => f.config.contexts ?? []).find((c) => c.name === currentContext)?.context?.user;
  if (!userName) return undefined;
  for (const { path, config } of files) {
    const user = config.users?.find((u) => u.name === userName)?.user;
    if (!user) continue;
    const tokenFile = user.tokenFile ?? user['token-file'];
    if (!tokenFile) return undefined;
    return isAbsolute(tokenFile) ? tokenFile : join(dirname(path), tokenFile);
  }
  return undefined;
}
