// `coder-k8s --app=mcp-stdio` spawned as an MCP client would spawn it, against the harness's kube-apiserver:
// newline-delimited JSON-RPC on stdin and stdout (and nothing else on stdout), initialize, tools/list and tool
// calls authorized as the kubeconfig's user, whose RBAC bounds what a tool reaches; stdin closed ends it.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { coderControlPlaneClient } from '../../generated/clients/index.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';
import { mcpCallerRbac } from '../harness/mcp-server.ts';
import { eventually } from '../harness/wait.ts';

const ns = 'mcp-stdio';
const caller = 'stdio-user';

interface JsonRpcMessage {
  jsonrpc?: string;
  id?: number;
  result?: Record<string, unknown> & { structuredContent?: Record<string, unknown>; isError?: boolean; content?: { text?: string }[] };
  error?: { code: number; message: string };
}

/** The spawned server: requests written to its stdin, every stdout line parsed (a line that is not JSON-RPC fails the test). */
class StdioSession {
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private nextId = 1;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(kubeconfig: string) {
    this.child = spawn(process.execPath, ['bin/coder-k8s.js', '--app=mcp-stdio', `--kubeconfig=${kubeconfig}`], { stdio: 'pipe' });
    let buffered = '';
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      this.lines.push(...parts);
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  messages(): JsonRpcMessage[] {
    return this.lines.map((line) => {
      const parsed = JSON.parse(line) as JsonRpcMessage;
      assert.equal(parsed.jsonrpc, '2.0', `stdout carries JSON-RPC only, saw: ${line}`);
      return parsed;
    });
  }

  notify(method: string, params: Record<string, unknown> = {}): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }

  async request(method: string, params: Record<string, unknown> = {}): Promise<JsonRpcMessage> {
    const id = this.nextId++;
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return eventually(`the answer to ${method} (stderr so far: ${this.stderr.slice(-500)})`, async () =>
      this.messages().find((m) => m.id === id),
    );
  }

  closeStdin(): void {
    this.child.stdin.end();
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

describe('MCP server (--app=mcp-stdio)', () => {
  let cp: ControlPlane;
  let kubeconfig: string;
  let session: StdioSession | undefined;

  before(async () => {
    cp = await startControlPlane();
    const admin = cp.adminKubeconfigPath;
    await kubectlOk(admin, ['apply', '-f', 'config/crd/bases/coder.com_codercontrolplanes.yaml']);
    await waitForCrdsEstablished(admin, ['codercontrolplanes.coder.com']);
    await kubectlOk(admin, ['create', 'namespace', ns]);
    await coderControlPlaneClient(cp.adminConfig()).create(aControlPlane('coder').inNamespace(ns).build());
    // The caller's RBAC as docs/how-to/mcp.md gives it: the tools in one namespace, and listing namespaces.
    await kubectlOk(admin, ['apply', '-f', '-'], mcpCallerRbac(caller, ns));
    kubeconfig = await cp.userKubeconfig(caller);
  });
  after(async () => {
    session?.kill();
    await cp?.stop();
  });

  it('answers initialize, tools/list and tool calls on stdout as the kubeconfig user, logs on stderr, and exits when stdin closes', async () => {
    session = new StdioSession(kubeconfig);
    const init = await session.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'coder-k8s-test', version: '1' },
    });
    assert.equal((init.result?.serverInfo as { name?: string }).name, 'coder-k8s');
    session.notify('notifications/initialized');

    const tools = await session.request('tools/list');
    const names = ((tools.result?.tools ?? []) as { name: string }[]).map((t) => t.name).sort();
    assert.equal(names.length, 14);
    assert.ok(names.includes('list_control_planes') && names.includes('set_workspace_running'), names.join(', '));

    const listed = await session.request('tools/call', { name: 'list_control_planes', arguments: { namespace: ns } });
    assert.equal(listed.result?.isError, undefined, JSON.stringify(listed.result));
    const items = (listed.result?.structuredContent?.items ?? []) as { name: string; namespace: string }[];
    assert.deepEqual(
      items.map((i) => `${i.namespace}/${i.name}`),
      [`${ns}/coder`],
    );

    // Across all namespaces the caller may not list: the tool refuses it, naming who asked, as over HTTP.
    const everywhere = await session.request('tools/call', { name: 'list_control_planes', arguments: {} });
    assert.equal(everywhere.result?.isError, true);
    assert.match(
      everywhere.result?.content?.[0]?.text ?? '',
      /^forbidden: the kubeconfig's user may not list codercontrolplanes\.coder\.com across all namespaces/,
    );

    assert.match(session.stderr, /starting coder-k8s MCP server on stdin and stdout/);
    session.closeStdin();
    assert.equal(await session.exited, 0, `exit code; stderr: ${session.stderr.slice(-1000)}`);
    session.messages();
  });

  it('refuses the HTTP transport flags with --app=mcp-stdio, naming the flag', async () => {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['bin/coder-k8s.js', '--app=mcp-stdio', '--mcp-as=someone'], { stdio: 'pipe' });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
      child.on('exit', (exit) => resolve({ code: exit, stderr: err }));
    });
    assert.equal(code, 1);
    assert.match(stderr, /--mcp-as is only used with --app=mcp-http; --app=mcp-stdio serves the one client on its stdin and stdout/);
  });
});
