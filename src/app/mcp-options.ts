// The flags of `--app=mcp-http`: where the MCP server listens, its bearer token file, and the Kubernetes
// identity whose RBAC bounds every tool. Refused with any other mode: `--app=mcp-stdio` has no listener and no
// token, and its caller is the kubeconfig's user; the others never run the MCP server.
import { isLoopbackHost, parseBindAddress } from '../runtime/http-endpoint.ts';
import { UsageError } from './errors.ts';
import type { AppMode } from './app-mode.ts';

export interface McpOptions {
  /** host:port, loopback only. */
  bindAddress: string;
  tokenFile: string;
  /** The user (and groups) every tool call is authorized as, by SubjectAccessReview. */
  caller: { user: string; groups: string[] };
}

export const defaultMcpBindAddress = '127.0.0.1:8090';

export const mcpFlags = {
  'mcp-bind-address': { type: 'string' },
  'mcp-token-file': { type: 'string' },
  'mcp-as': { type: 'string' },
  'mcp-as-group': { type: 'string', multiple: true },
} as const;

export const mcpUsage = `  --mcp-bind-address=ADDR           mcp-http: where the MCP server listens, loopback only
                                    (default ${defaultMcpBindAddress})
  --mcp-token-file=PATH             mcp-http: file holding the bearer token clients must send
                                    (at least 32 bytes; required)
  --mcp-as=USER                     mcp-http: the Kubernetes user whose RBAC every tool call must
                                    pass (SubjectAccessReview; required)
  --mcp-as-group=GROUP              mcp-http: a group of that user; repeat for several`;

interface McpFlagValues {
  'mcp-bind-address'?: string;
  'mcp-token-file'?: string;
  'mcp-as'?: string;
  'mcp-as-group'?: string[];
}

export function parseMcpOptions(app: AppMode, values: McpFlagValues): McpOptions | undefined {
  if (app !== 'mcp-http') {
    const given = (Object.keys(mcpFlags) as (keyof McpFlagValues)[]).find((flag) => values[flag] !== undefined);
    if (given && app === 'mcp-stdio') {
      throw new UsageError(
        `--${given} is only used with --app=mcp-http; --app=mcp-stdio serves the one client on its stdin and stdout, ` +
          "and every tool call is authorized as the kubeconfig's user",
      );
    }
    if (given) throw new UsageError(`--${given} is only used with --app=mcp-http; --app=${app} does not run the MCP server`);
    return undefined;
  }
  const tokenFile = values['mcp-token-file']?.trim();
  if (!tokenFile) throw new UsageError('--mcp-token-file is required for --app=mcp-http: a file holding a token of at least 32 bytes');
  const user = values['mcp-as']?.trim();
  if (!user) {
    throw new UsageError(
      '--mcp-as is required for --app=mcp-http: name the Kubernetes user whose RBAC bounds every tool ' +
        '(for example system:serviceaccount:coder-system:coder-k8s-mcp)',
    );
  }
  const groups = (values['mcp-as-group'] ?? []).map((g) => g.trim());
  if (groups.some((g) => g === '')) throw new UsageError('--mcp-as-group is empty: name a group, or leave the flag out');
  const bindAddress = values['mcp-bind-address'] ?? defaultMcpBindAddress;
  let bind;
  try {
    bind = parseBindAddress(bindAddress);
  } catch (err) {
    throw new UsageError(`--mcp-bind-address: ${(err as Error).message}`);
  }
  // Plain HTTP with a bearer token: only this machine (or kubectl port-forward) may reach it.
  if (!bind || !isLoopbackHost(bind.host) || bind.host === 'localhost') {
    throw new UsageError(
      `--mcp-bind-address=${bindAddress}: the MCP server serves plain HTTP, so it listens on a loopback address only ` +
        `(such as ${defaultMcpBindAddress} or [::1]:8090); reach it with kubectl port-forward`,
    );
  }
  return { bindAddress, tokenFile, caller: { user, groups: [...new Set(groups)] } };
}
