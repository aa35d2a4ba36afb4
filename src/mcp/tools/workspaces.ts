// Tools about Coder workspaces, named and authorized as the aggregated API's CoderWorkspaces
// (aggregation.coder.com coderworkspaces): the caller needs that resource's verb in the namespace, and
// the call goes to the Coder of the namespace's control plane with the operator token.
import { z } from 'zod';
import type { Schemas } from '../../coder/api-types.ts';
import { isCoderNotFound, isUnknownUser } from '../../coder/error-predicates.ts';
import { listAllWorkspaces } from '../../coder/workspace-list.ts';
import type { ToolContext } from '../tool.ts';
import { defineTool, optionalNamespace, requiredName, rfc3339Seconds } from '../tool.ts';
import { parseCoderName } from './coder-names.ts';
import { controlPlaneNamespaces } from './control-plane-namespaces.ts';

const coderWorkspaces = { group: 'aggregation.coder.com', resource: 'coderworkspaces' };
const runningStatuses = new Set(['pending', 'starting', 'running']);

type Workspace = Schemas['Workspace'];

/** What the aggregated API shows of a workspace: spec.running (the latest build is a start that has not failed or ended), status.autoShutdown. */
function summary(namespace: string, ws: Workspace) {
  const build = ws.latest_build;
  return {
    name: `${ws.organization_name ?? ''}.${ws.owner_name ?? ''}.${ws.name}`,
    namespace,
    running: build.transition === 'start' && runningStatuses.has(build.status),
    autoShutdown: rfc3339Seconds(build.deadline && !build.deadline.startsWith('0001-') ? build.deadline : undefined),
  };
}

async function readWorkspace(ctx: ToolContext, namespace: string, name: string): Promise<Workspace> {
  const [organization, owner, workspace] = parseCoderName('workspace', name);
  const coder = await ctx.coderFor(namespace);
  const notFound = new Error(`coderworkspaces.aggregation.coder.com "${name}" not found in namespace "${namespace}"`);
  const found = await coder
    .request('GET', '/api/v2/users/{user}/workspace/{workspaceName}', {
      params: { user: owner!, workspaceName: workspace! },
      query: { include_deleted: false },
    })
    .catch((err: unknown) => {
      // Coder answers 400, not 404, for an owner that names no user (coderd/httpmw/userparam.go).
      if (isCoderNotFound(err) || isUnknownUser(err)) throw notFound;
      throw err;
    });
  // The owner+name lookup ignores the organization: another organization's workspace is not this one.
  if (found.organization_name !== organization) throw notFound;
  return found;
}

export const listWorkspaces = defineTool({
  name: 'list_workspaces',
  description: 'List CoderWorkspace resources.',
  input: { namespace: optionalNamespace },
  async run({ namespace }, ctx) {
    await ctx.access.require({ verb: 'list', ...coderWorkspaces, ...(namespace ? { namespace } : {}) });
    const items = [];
    for (const ns of namespace ? [namespace] : await controlPlaneNamespaces(ctx)) {
      const coder = await ctx.coderFor(ns);
      const workspaces = await listAllWorkspaces(coder, '');
      items.push(...workspaces.map((ws) => summary(ns, ws)).sort((a, b) => a.name.localeCompare(b.name)));
    }
    return { items };
  },
});

export const getWorkspace = defineTool({
  name: 'get_workspace',
  description: 'Get a CoderWorkspace resource by namespace and name.',
  input: { namespace: requiredName('namespace'), name: requiredName('name') },
  async run({ namespace, name }, ctx) {
    await ctx.access.require({ verb: 'get', ...coderWorkspaces, namespace, name });
    return { workspace: summary(namespace, await readWorkspace(ctx, namespace, name)) };
  },
});

export const setWorkspaceRunning = defineTool({
  name: 'set_workspace_running',
  description: 'Set spec.running for a CoderWorkspace resource.',
  input: {
    namespace: requiredName('namespace'),
    name: requiredName('name'),
    running: z.boolean().describe('start (true) or stop (false)'),
  },
  async run({ namespace, name, running }, ctx) {
    await ctx.access.require({ verb: 'get', ...coderWorkspaces, namespace, name });
    await ctx.access.require({ verb: 'update', ...coderWorkspaces, namespace, name });
    const current = await readWorkspace(ctx, namespace, name);
    if (summary(namespace, current).running === running) return { workspace: summary(namespace, current), updated: false };
    const coder = await ctx.coderFor(namespace);
    const build = await coder.request('POST', '/api/v2/workspaces/{workspace}/builds', {
      params: { workspace: current.id },
      body: { transition: running ? 'start' : 'stop' },
    });
    return { workspace: summary(namespace, { ...current, latest_build: build }), updated: true };
  },
});
