// `coder-k8s --app=mcp-http` as its own process, under the operator's generated role, against the
// harness's kube-apiserver (a control plane the operator made ready, with kwok pods) and the Coder API
// double: the bearer token, initialize and tools/list, every tool once, and the caller's RBAC (--mcp-as)
// bounding what a tool reaches although the operator's role would reach more.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { coderControlPlaneClient } from '../../generated/clients/index.ts';
import { createCoderDatabase } from '../harness/coder-database.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { initializeStatusWithHost } from '../harness/mcp-initialize.ts';
import { podLogLines } from '../harness/kwok.ts';
import { mcpCallerRbac, startMcpServer, type McpServerProcess, type ToolAnswer } from '../harness/mcp-server.ts';
import { operatorNamespace } from '../harness/operator.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { eventually } from '../harness/wait.ts';
import { aCoderTemplate, aCoderWorkspace } from '../fixtures/coder-api-objects.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';

const ns = 'mcp-tools';
const caller = 'mcp-tester';
const expectedTools = [
  'check_health',
  'get_control_plane_deployment_status',
  'get_control_plane_status',
  'get_events',
  'get_pod_logs',
  'get_service_status',
  'get_template',
  'get_workspace',
  'list_control_plane_pods',
  'list_control_planes',
  'list_templates',
  'list_workspaces',
  'set_template_running',
  'set_workspace_running',
];

describe('MCP server (--app=mcp-http)', () => {
  let env: OperatorEnvironment;
  let server: McpServerProcess;
  let mcpUrl: string;
  let token: string;
  let tokenDir: string;
  let kubeconfig: string;
  let client: Client;
  let coderUrl: string;

  before(async () => {
    env = await operatorEnvironment();
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    const database = await createCoderDatabase(env.postgres);
    await kubectlOk(env.admin, ['-n', ns, 'create', 'secret', 'generic', 'coder-db-app', `--from-literal=uri=${database}`]);
    await coderControlPlaneClient(env.cp.adminConfig()).create(
      aControlPlane('coder').inNamespace(ns).withDatabase('coder-db-app', 'uri').build(),
    );
    await eventually(
      'operator access and a ready replica',
      async () => {
        const cp = await coderControlPlaneClient(env.cp.adminConfig()).get(ns, 'coder');
        coderUrl = cp.status?.url ?? '';
        return cp.status?.operatorAccessReady === true && (cp.status.readyReplicas ?? 0) >= 1;
      },
      { timeoutMs: 90_000 },
    );
    const operatorToken = await kubectlOk(env.admin, ['-n', ns, 'get', 'secret', 'coder-operator-token', '-o', 'jsonpath={.data.token}']);
    env.coder.addToken(Buffer.from(operatorToken, 'base64').toString());
    await kubectlOk(env.admin, ['apply', '-f', '-'], mcpCallerRbac(caller, ns));

    const starter = aCoderTemplate(env.coder.state, 'coder', 'starter');
    aCoderWorkspace(env.coder.state, { owner: 'alice', name: 'dev', template: starter });
    aCoderWorkspace(env.coder.state, {
      owner: 'bob',
      name: 'dev',
      template: aCoderTemplate(env.coder.state, 'other', 'base'),
      transition: 'start',
      deadline: '2026-12-01T18:00:00.123Z',
    });

    server = await startMcpServer(env, caller);
    ({ url: mcpUrl, token, dir: tokenDir, kubeconfig, client } = server);
  });
  after(async () => {
    await server?.stop();
    await env?.stop();
  });

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> =>
    (await client.callTool({ name, arguments: args })) as ToolAnswer;
  const ok = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await call(name, args);
    assert.ok(!answer.isError, `${name} failed: ${answer.content?.[0]?.text}`);
    assert.deepEqual(JSON.parse(answer.content![0]!.text!), answer.structuredContent, 'the text is the structured result');
    return answer.structuredContent as Record<string, any>;
  };
  const failure = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await call(name, args);
    assert.equal(answer.isError, true, `${name} should fail: ${JSON.stringify(answer.structuredContent)}`);
    return answer.content![0]!.text!;
  };
  const initialize = (headers: Record<string, string>) =>
    fetch(`${mcpUrl}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });

  const statusWithHost = (host: string) => initializeStatusWithHost(`${mcpUrl}/mcp`, token, host);

  it('initializes a session and lists the 14 tools with strict input schemas', async () => {
    assert.deepEqual(client.getServerVersion()?.name, 'coder-k8s');
    assert.ok(client.getServerCapabilities()?.tools, 'tools capability');
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), expectedTools);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} refuses unknown arguments`);
      assert.ok(tool.description, `${tool.name} has a description`);
    }
    const setRunning = tools.find((t) => t.name === 'set_workspace_running')!;
    assert.deepEqual([...(setRunning.inputSchema.required ?? [])].sort(), ['name', 'namespace', 'running']);
    const pods = tools.find((t) => t.name === 'list_control_plane_pods')!;
    assert.equal((pods.inputSchema.properties!.limit as { type: string }).type, 'integer');
  });

  it('answers 401 without the token or with a wrong one, and serves the probes without one', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: `Bearer ${token.slice(0, -1)}x` },
      { Authorization: `Basic ${token}` },
    ]) {
      const response = await initialize(headers);
      assert.equal(response.status, 401, JSON.stringify(headers));
      assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="coder-k8s-mcp"');
      assert.equal((await response.text()).trim(), 'unauthorized');
      assert.equal(response.headers.get('mcp-session-id'), null, 'no session is created');
    }
    assert.equal((await fetch(`${mcpUrl}/healthz`)).status, 200);
    const withSession = await fetch(`${mcpUrl}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Mcp-Session-Id': client.transport!.sessionId ?? '' },
      body: '{"jsonrpc":"2.0","id":9,"method":"tools/list"}',
    });
    assert.equal(withSession.status, 401, 'a session id is no credential');
    const authorized = await initialize({ Authorization: `bearer ${token}` });
    assert.equal(authorized.status, 200, 'the scheme is case-insensitive');
    assert.ok(authorized.headers.get('mcp-session-id'));
    await authorized.body?.cancel();
    assert.equal(await statusWithHost('attacker.example'), 403, 'a non-loopback Host (DNS rebinding) is refused');
    assert.equal(await statusWithHost(`localhost:${new URL(mcpUrl).port}`), 200);
    assert.equal((await initialize({ Authorization: `Bearer ${token}`, Origin: 'http://attacker.example' })).status, 403);
    assert.equal((await initialize({ Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' })).status, 415);
  });

  it('check_health lists a namespace', async () => {
    assert.deepEqual(await ok('check_health'), { status: 'ok', version: 'dev' });
  });

  it('reads the control plane, its pods, Deployment, Service and Events', async () => {
    const planes = await ok('list_control_planes', { namespace: ns });
    assert.deepEqual(planes.items, [{ name: 'coder', namespace: ns, phase: planes.items[0].phase, readyReplicas: 1, url: coderUrl }]);
    const status = await ok('get_control_plane_status', { namespace: ns, name: 'coder' });
    assert.equal(status.url, coderUrl);
    assert.ok(
      status.conditions.some((c: { type: string }) => c.type === 'Ready'),
      'conditions are listed',
    );

    const pods = await ok('list_control_plane_pods', { namespace: ns, name: 'coder', limit: 0 });
    assert.equal(pods.items.length, 1);
    assert.equal(pods.truncated, false);
    assert.match(pods.items[0].name, /^coder-/);
    assert.equal(pods.items[0].readyContainers, 1);
    assert.match(pods.items[0].startTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const deployment = await ok('get_control_plane_deployment_status', { namespace: ns, name: 'coder' });
    assert.equal(deployment.readyReplicas, 1);
    const types = deployment.conditions.map((c: { type: string }) => c.type);
    assert.deepEqual(types, [...types].sort(), 'conditions sorted by type');

    const service = await ok('get_service_status', { namespace: ns, name: 'coder' });
    assert.equal(service.type, 'ClusterIP');
    assert.ok(service.ports.every((p: { targetPort: unknown }) => typeof p.targetPort === 'string'));

    const events = await ok('get_events', { namespace: ns, name: 'coder', kind: 'CoderControlPlane', limit: 5 });
    assert.ok(events.items.length >= 1, 'the operator recorded Events for the control plane');
    assert.ok(events.items.every((e: { reason: string }) => e.reason));
  });

  it('get_pod_logs reads the pod log through the API server once the caller may read it: tailLines, limitBytes', async () => {
    const pods = await ok('list_control_plane_pods', { namespace: ns, name: 'coder' });
    const name = pods.items[0].name;
    // kwok serves the fake node's kubelet port: every container logs podLogLines.
    assert.deepEqual(await ok('get_pod_logs', { namespace: ns, name, tailLines: 10 }), { logs: podLogLines.map((l) => `${l}\n`).join('') });
    assert.deepEqual(await ok('get_pod_logs', { namespace: ns, name, tailLines: 1 }), { logs: `${podLogLines[1]}\n` });
    assert.deepEqual(await ok('get_pod_logs', { namespace: ns, name, limitBytes: 10 }), {
      logs: `${podLogLines[0]!.slice(0, 10)}\n(truncated)`,
    });
    assert.match(
      await failure('get_pod_logs', { namespace: operatorNamespace, name: 'any' }),
      /may not get pods\/log "any" in namespace "coder-system"/,
    );
  });

  it('lists and reads workspaces and starts one through Coder with the operator token', async () => {
    const list = await ok('list_workspaces', { namespace: ns });
    assert.deepEqual(list.items, [
      { name: 'coder.alice.dev', namespace: ns, running: false },
      { name: 'other.bob.dev', namespace: ns, running: true, autoShutdown: '2026-12-01T18:00:00Z' },
    ]);
    assert.deepEqual((await ok('get_workspace', { namespace: ns, name: 'coder.alice.dev' })).workspace, list.items[0]);
    assert.match(await failure('get_workspace', { namespace: ns, name: 'coder.bob.dev' }), /"coder\.bob\.dev" not found/);
    // An owner Coder does not have (Coder answers 400 there, not 404) is as missing as a workspace of a known owner.
    assert.match(await failure('get_workspace', { namespace: ns, name: 'coder.nobody.dev' }), /"coder\.nobody\.dev" not found/);
    assert.match(
      await failure('set_workspace_running', { namespace: ns, name: 'coder.nobody.dev', running: true }),
      /"coder\.nobody\.dev" not found/,
    );
    assert.match(await failure('get_workspace', { namespace: ns, name: 'alice.dev' }), /expected 2 separators/);

    const before = env.coder.requests.length;
    const started = await ok('set_workspace_running', { namespace: ns, name: 'coder.alice.dev', running: true });
    assert.deepEqual(started, { workspace: { ...list.items[0], running: true }, updated: true });
    const again = await ok('set_workspace_running', { namespace: ns, name: 'coder.alice.dev', running: true });
    assert.equal(again.updated, false);
    const builds = env.coder.requests.slice(before).filter((r) => r.method === 'POST');
    assert.deepEqual(
      builds.map((r) => [r.path, r.body]),
      [[`/api/v2/workspaces/${env.coder.state.world.workspaces[0]!.workspace.id}/builds`, { transition: 'start' }]],
    );
    assert.ok(env.coder.requests.slice(before).every((r) => env.coder.state.tokens.get(r.token!) !== undefined));
  });

  it('lists (deprecated ones too) and reads templates; spec.running of a template is refused as the legacy field it is', async () => {
    // Coder's own list leaves deprecated templates out unless asked; list_templates shows them as get_template finds them.
    const base = env.coder.state.world.templates.find((t) => t.name === 'base')!;
    Object.assign(base, { deprecated: true, deprecation_message: 'retired' });
    const list = await ok('list_templates', { namespace: ns });
    assert.deepEqual(
      list.items.map((t: { name: string }) => t.name),
      ['coder.starter', 'other.base'],
    );
    const { template } = await ok('get_template', { namespace: ns, name: 'coder.starter' });
    assert.equal(template.activeVersionID, env.coder.state.world.templates[0]!.active_version_id);
    assert.deepEqual(await ok('set_template_running', { namespace: ns, name: 'coder.starter', running: false }), {
      template,
      updated: false,
    });
    assert.match(await failure('set_template_running', { namespace: ns, name: 'coder.starter', running: true }), /legacy field/);
  });

  it('reaches nothing the caller may not do, although the operator could', async () => {
    const before = env.coder.requests.length;
    assert.match(
      await failure('list_workspaces', {}),
      /forbidden: mcp-tester \(--mcp-as\) may not list coderworkspaces\.aggregation\.coder\.com across all namespaces/,
    );
    assert.match(await failure('list_control_planes', {}), /may not list codercontrolplanes\.coder\.com across all namespaces/);
    assert.match(
      await failure('get_service_status', { namespace: operatorNamespace, name: 'kubernetes' }),
      /may not get services "kubernetes" in namespace "coder-system"/,
    );
    assert.match(
      await failure('get_control_plane_status', { namespace: 'default', name: 'coder' }),
      /may not get codercontrolplanes\.coder\.com "coder" in namespace "default"/,
    );
    assert.equal(env.coder.requests.length, before, 'Coder was not called');
  });

  it("refuses to change a workspace or template for a caller who may read them but not update them, and never calls Coder's build", async () => {
    const reader = 'mcp-reader';
    await kubectlOk(
      env.admin,
      ['apply', '-f', '-'],
      `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: mcp-reader, namespace: ${ns}}
rules:
  - {apiGroups: [aggregation.coder.com], resources: [coderworkspaces, codertemplates], verbs: [get, list]}
  - {apiGroups: [coder.com], resources: [codercontrolplanes], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: mcp-reader, namespace: ${ns}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: mcp-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ${reader}}]
`,
    );
    const readOnly = await startMcpServer(env, reader);
    try {
      const refused = async (name: string, args: Record<string, unknown>) => {
        const answer = await readOnly.call(name, args);
        assert.equal(answer.isError, true, `${name} should fail: ${JSON.stringify(answer.structuredContent)}`);
        return answer.content![0]!.text!;
      };
      assert.ok(!(await readOnly.call('get_workspace', { namespace: ns, name: 'coder.alice.dev' })).isError, 'it may read');
      const before = env.coder.requests.length;
      assert.match(
        await refused('set_workspace_running', { namespace: ns, name: 'coder.alice.dev', running: true }),
        /forbidden: mcp-reader \(--mcp-as\) may not update coderworkspaces\.aggregation\.coder\.com "coder\.alice\.dev" in namespace "mcp-tools"/,
      );
      assert.match(
        await refused('set_template_running', { namespace: ns, name: 'coder.starter', running: false }),
        /forbidden: mcp-reader \(--mcp-as\) may not update codertemplates\.aggregation\.coder\.com "coder\.starter"/,
      );
      assert.match(await refused('get_events', { namespace: ns }), /may not list events in namespace "mcp-tools"/);
      assert.match(
        await refused('list_control_plane_pods', { namespace: ns, name: 'coder' }),
        /may not list pods in namespace "mcp-tools"/,
      );
      assert.deepEqual(env.coder.requests.slice(before), [], 'Coder was not called');
    } finally {
      await readOnly.stop();
    }
  });

  it('refuses arguments outside the input schema', async () => {
    assert.match(await failure('check_health', { verbose: true }), /Input validation error/);
    assert.match(await failure('list_control_plane_pods', { namespace: ns, name: 'coder', limit: 1.5 }), /Input validation error/);
    assert.match(await failure('get_workspace', { namespace: ns }), /Input validation error/);
    assert.match(await failure('list_control_plane_pods', { namespace: ns, name: 'x,app=y' }), /Kubernetes object name/);
  });

  it('refuses to start with a token file shorter than 32 bytes, in one line', async () => {
    const short = join(tokenDir, 'short');
    writeFileSync(short, `${'x'.repeat(31)}\n`);
    const result = await promisify(execFile)(
      process.execPath,
      ['bin/coder-k8s.js', '--app=mcp-http', `--kubeconfig=${kubeconfig}`, `--mcp-token-file=${short}`, `--mcp-as=${caller}`],
      {},
    ).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `coder-k8s: --mcp-token-file "${short}" holds 31 bytes; at least 32 are required\n`);
  });
});
