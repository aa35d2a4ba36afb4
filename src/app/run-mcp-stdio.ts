// `coder-k8s --app=mcp-stdio`: the MCP server for one client that started this process, as newline-delimited
// JSON-RPC on stdin and stdout (logs go to stderr). The tools and their checks are those of --app=mcp-http;
// the caller is the kubeconfig's user, whose credentials make every request and whose RBAC every tool call is
// reviewed against (SelfSubjectAccessReview). It exits 0 when stdin closes, or on SIGTERM or SIGINT.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { KubeHttp } from '../runtime/kube-http.ts';
import { kubeconfigTokenFile } from '../runtime/token-file.ts';
import { CallerAccess } from '../mcp/caller-access.ts';
import { controlPlaneCoder } from '../mcp/control-plane-coder.ts';
import { newMcpServer } from '../mcp/server.ts';
import type { ToolContext } from '../mcp/tool.ts';
import type { OperatorOptions } from './options.ts';
import type { McpRunParts } from './run-mcp.ts';

export async function runMcpStdio(options: OperatorOptions, version: string, parts: McpRunParts): Promise<number> {
  const kube = new KubeHttp(parts.loadKubeConfig(options.kubeconfig), { tokenFile: kubeconfigTokenFile(options.kubeconfig) });
  const ctx: ToolContext = { kube, access: new CallerAccess(kube, undefined), coderFor: controlPlaneCoder(kube, parts.coderClient) };
  const server = newMcpServer(ctx, version);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  parts.logger.info({ version, app: options.app }, "starting coder-k8s MCP server on stdin and stdout, as the kubeconfig's user");
  if (options.testOnlyCoderUrl)
    parts.logger.warn({ coderURL: options.testOnlyCoderUrl }, 'tests only: every Coder API call goes to --test-only-coder-url');
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  const signal = await Promise.race([closed.then(() => undefined), signalled]);
  parts.logger.info(signal ? { signal } : {}, signal ? 'shutting down the MCP server' : 'stdin closed; shutting down the MCP server');
  await server.close();
  return 0;
}
