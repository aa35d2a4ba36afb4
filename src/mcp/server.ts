// One MCP server definition per session: the 14 tools, each answering its result as structured
// content and as JSON text; a failure is a tool error (isError) carrying the message.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpTool, ToolContext } from './tool.ts';
import { checkHealth, getEvents, getPodLogs, getServiceStatus } from './tools/cluster.ts';
import { getControlPlaneDeploymentStatus, getControlPlaneStatus, listControlPlanePods, listControlPlanes } from './tools/control-planes.ts';
import { getTemplate, listTemplates, setTemplateRunning } from './tools/templates.ts';
import { getWorkspace, listWorkspaces, setWorkspaceRunning } from './tools/workspaces.ts';

export const mcpTools: readonly McpTool[] = [
  checkHealth,
  getControlPlaneDeploymentStatus,
  getControlPlaneStatus,
  getEvents,
  getPodLogs,
  getServiceStatus,
  getTemplate,
  getWorkspace,
  listControlPlanePods,
  listControlPlanes,
  listTemplates,
  listWorkspaces,
  setTemplateRunning,
  setWorkspaceRunning,
];

export function newMcpServer(ctx: ToolContext, version: string): McpServer {
  const server = new McpServer({ name: 'coder-k8s', version }, { capabilities: { logging: {} } });
  for (const tool of mcpTools) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, async (input: unknown) => {
      const result = await tool.run(input as never, ctx);
      return { structuredContent: result, content: [{ type: 'text' as const, text: JSON.stringify(result) }] };
    });
  }
  return server;
}
