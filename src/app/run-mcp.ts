// `coder-k8s --app=mcp-http`: the MCP server alone. The token file is read first (no token, no start,
// before any cluster access); then the kubeconfig, then the server on its loopback address. SIGTERM or
// SIGINT closes the sessions and exits 0.
import { KubeHttp } from '../runtime/kube-http.ts';
import type { Logger } from '../runtime/logger.ts';
import { kubeconfigTokenFile } from '../runtime/token-file.ts';
import { bearerCheck, readBearerToken } from '../mcp/bearer-token.ts';
import { CallerAccess } from '../mcp/caller-access.ts';
import { controlPlaneCoder } from '../mcp/control-plane-coder.ts';
import { startMcpHttpServer } from '../mcp/http-server.ts';
import { newMcpServer } from '../mcp/server.ts';
import type { ToolContext } from '../mcp/tool.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import type { OperatorOptions } from './options.ts';
import type { CoderClientFor } from '../controlplane/coder-client.ts';

export interface McpRunParts {
  loadKubeConfig(path: string | undefined): KubeConfig;
  coderClient: CoderClientFor;
  logger: Logger;
}

export async function runMcpServer(options: OperatorOptions, version: string, parts: McpRunParts): Promise<number> {
  const mcp = options.mcp!;
  const authorized = bearerCheck(readBearerToken(mcp.tokenFile));
  const kubeConfig = parts.loadKubeConfig(options.kubeconfig);
  const kube = new KubeHttp(kubeConfig, { tokenFile: kubeconfigTokenFile(options.kubeconfig) });
  const ctx: ToolContext = {
    kube,
    access: new CallerAccess(kube, mcp.caller),
    coderFor: controlPlaneCoder(kube, parts.coderClient),
  };
  const server = await startMcpHttpServer({
    bindAddress: mcp.bindAddress,
    authorized,
    newServer: () => newMcpServer(ctx, version),
    logger: parts.logger,
  });
  parts.logger.info({ version, app: options.app, port: server.port, caller: mcp.caller }, 'starting coder-k8s MCP server');
  if (options.testOnlyCoderUrl)
    parts.logger.warn({ coderURL: options.testOnlyCoderUrl }, 'tests only: every Coder API call goes to --test-only-coder-url');
  return new Promise<number>((resolve) => {
    const stop = async (signal: NodeJS.Signals) => {
      parts.logger.info({ signal }, 'shutting down the MCP server');
      await server.close();
      parts.logger.info('stopped');
      resolve(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
