// The MCP server's tools (`coder-k8s --app=mcp-http`) against the real Coder server, as docs/how-to/mcp.md
// shows them: control planes from Kubernetes, templates and workspaces from Coder through the operator token
// the bootstrap minted into Coder's own database, and a workspace stopped and started by real builds that
// Coder records as the operator's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectlOk } from '../../harness/kubectl.ts';
import { mcpCallerRbac, startMcpServer, type McpServerProcess } from '../../harness/mcp-server.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';
import { createEchoTemplate, type RealTemplate } from '../../harness/real-coder-templates.ts';
import { eventually } from '../../harness/wait.ts';

const ns = 'mcp-real';
const caller = 'mcp-real-tester';

describe('MCP server tools on the real Coder server', () => {
  let env: RealCoderEnvironment;
  let mcp: McpServerProcess;
  let template: RealTemplate;
  let workspaceId: string;
  let controlPlaneUrl: string;

  /** Waits until the workspace's latest build ended, and returns it. */
  const settledBuild = (what: string) =>
    eventually(
      what,
      async () => {
        const ws = await env.coder.ok('GET', `/api/v2/workspaces/${workspaceId}`);
        return ['succeeded', 'failed', 'canceled'].includes(ws.latest_build.job.status) ? ws.latest_build : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );

  before(async () => {
    env = await realCoderEnvironment();
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    const { controlPlane, token } = await controlPlaneWithOperatorAccess(env, ns);
    // Nothing here needs owner: the operator user holds organization-admin only, and what follows works with it.
    const me = await env.coder.ok('GET', '/api/v2/users/me', { token });
    assert.deepEqual(me.roles, [], 'no site role');
    controlPlaneUrl = controlPlane.status!.url!;
    await kubectlOk(env.admin, ['apply', '-f', '-'], mcpCallerRbac(caller, ns, 'mcp-real'));
    template = await createEchoTemplate(env.coder, 'starter');
    const ws = await env.coder.ok('POST', '/api/v2/users/me/workspaces', { body: { name: 'dev', template_id: template.id } });
    workspaceId = ws.id;
    assert.equal((await settledBuild('the first build of the workspace')).job.status, 'succeeded');
    mcp = await startMcpServer(env, caller);
  });
  after(async () => {
    await mcp?.stop();
    await env?.stop();
  });

  const ok = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await mcp.call(name, args);
    assert.ok(!answer.isError, `${name} failed: ${answer.content?.[0]?.text}`);
    return answer.structuredContent as Record<string, any>;
  };
  const org = () => env.coder.organization.name;
  const owner = () => env.coder.owner.username;

  it('lists and reads the control plane from Kubernetes', async () => {
    const planes = await ok('list_control_planes', { namespace: ns });
    assert.deepEqual(
      planes.items.map((p: { name: string; namespace: string; url: string }) => [p.name, p.namespace, p.url]),
      [['coder', ns, controlPlaneUrl]],
    );
    const status = await ok('get_control_plane_status', { namespace: ns, name: 'coder' });
    assert.equal(status.url, controlPlaneUrl);
    assert.ok(status.conditions.some((c: { type: string; status: string }) => c.type === 'OperatorAccessReady' && c.status === 'True'));
  });

  it("lists and reads Coder's templates with the operator token", async () => {
    const list = await ok('list_templates', { namespace: ns });
    assert.deepEqual(list.items, [
      {
        name: `${org()}.starter`,
        namespace: ns,
        running: false,
        displayName: '',
        activeVersionID: template.activeVersionId,
        deprecated: false,
      },
    ]);
    assert.deepEqual((await ok('get_template', { namespace: ns, name: `${org()}.starter` })).template, list.items[0]);
    const missing = await mcp.call('get_template', { namespace: ns, name: `${org()}.absent` });
    assert.equal(missing.isError, true);
    assert.match(missing.content![0]!.text!, /"coder\.absent" not found in namespace "mcp-real"/);
  });

  it('lists and reads the workspace, and stops and starts it with real builds that Coder records as the operator’s', async () => {
    const name = `${org()}.${owner()}.dev`;
    const list = await ok('list_workspaces', { namespace: ns });
    assert.deepEqual(list.items, [{ name, namespace: ns, running: true }]);
    assert.deepEqual((await ok('get_workspace', { namespace: ns, name })).workspace, list.items[0]);

    const stopped = await ok('set_workspace_running', { namespace: ns, name, running: false });
    assert.equal(stopped.updated, true);
    const stop = await settledBuild('the stop build');
    assert.deepEqual([stop.transition, stop.job.status, stop.initiator_name], ['stop', 'succeeded', 'coder-k8s-operator']);
    assert.deepEqual((await ok('get_workspace', { namespace: ns, name })).workspace, { name, namespace: ns, running: false });
    assert.equal((await ok('set_workspace_running', { namespace: ns, name, running: false })).updated, false, 'already stopped');

    const started = await ok('set_workspace_running', { namespace: ns, name, running: true });
    assert.deepEqual([started.updated, started.workspace.running], [true, true]);
    const start = await settledBuild('the start build');
    assert.deepEqual([start.transition, start.job.status, start.initiator_name], ['start', 'succeeded', 'coder-k8s-operator']);
    assert.deepEqual((await ok('list_workspaces', { namespace: ns })).items, [{ name, namespace: ns, running: true }]);
  });
});
