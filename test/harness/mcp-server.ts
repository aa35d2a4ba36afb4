// `coder-k8s --app=mcp-http` as its own process for a test: the operator's ServiceAccount kubeconfig, a
// random bearer token in a file, the caller (--mcp-as) and its RBAC as docs/how-to/mcp.md shows it, Coder
// calls sent to the environment's Coder (--test-only-coder-url), and an MCP client connected to it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Environment } from './operator-environment.ts';
import { operatorNamespace, operatorServiceAccount } from './operator.ts';
import { freePort } from './ports.ts';
import { ManagedProcess, waitUntilReady } from './process.ts';

export interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
}

export interface McpServerProcess {
  /** http://127.0.0.1:<port>; the MCP endpoint is /mcp. */
  url: string;
  token: string;
  /** The directory of the token file (and the log), for tests that write more files. */
  dir: string;
  kubeconfig: string;
  process: ManagedProcess;
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  stop(): Promise<void>;
}

/**
 * The caller's RBAC of docs/how-to/mcp.md section 2: every tool in `namespace`, and listing namespaces
 * (check_health), for the user `caller`; `name` prefixes the roles.
 */
export function mcpCallerRbac(caller: string, namespace: string, name = 'mcp-tools'): string {
  return `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ${name}-user}
rules:
  - apiGroups: [""]
    resources: [pods, services, events]
    verbs: [get, list]
  - apiGroups: [""]
    resources: [pods/log]
    verbs: [get]
  - apiGroups: [apps]
    resources: [deployments]
    verbs: [get]
  - apiGroups: [coder.com]
    resources: [codercontrolplanes]
    verbs: [get, list]
  - apiGroups: [aggregation.coder.com]
    resources: [coderworkspaces, codertemplates]
    verbs: [get, list, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ${name}-user, namespace: ${namespace}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${name}-user}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ${caller}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ${name}-health}
rules: [{apiGroups: [""], resources: [namespaces], verbs: [list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ${name}-health}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${name}-health}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ${caller}}]
`;
}

/** Starts the MCP server as `caller` and connects a client; stop() closes both. */
export async function startMcpServer(env: Environment<{ url: string }>, caller: string): Promise<McpServerProcess> {
  const dir = mkdtempSync(join(env.cp.dir, 'mcp-'));
  const token = randomBytes(32).toString('base64url');
  writeFileSync(join(dir, 'token'), `${token}\n`, { mode: 0o600 });
  const kubeconfig = await env.cp.operatorKubeconfig(operatorNamespace, operatorServiceAccount);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = new ManagedProcess({
    name: 'coder-k8s mcp-http',
    command: globalThis.process.execPath,
    args: [
      'bin/coder-k8s.js',
      '--app=mcp-http',
      `--kubeconfig=${kubeconfig}`,
      `--mcp-token-file=${join(dir, 'token')}`,
      `--mcp-as=${caller}`,
      `--mcp-bind-address=127.0.0.1:${port}`,
      `--test-only-coder-url=${env.coder.url}`,
    ],
    logFile: join(dir, 'mcp.log'),
  });
  await waitUntilReady(process, `${url}/readyz`, async () => (await fetch(`${url}/readyz`)).status === 200, 30_000);
  const client = new Client({ name: 'coder-k8s-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return {
    url,
    token,
    dir,
    kubeconfig,
    process,
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolAnswer,
    async stop() {
      await client.close();
      await process.stop();
    },
  };
}
