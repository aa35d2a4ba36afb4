// Three models of Coder's organizations, templates and workspaces grew in the double side by side: the
// template tests' world (the richest: builds, agents, logs), the MCP server's, and the aggregated API
// server's. Until they are one, an operation more than one implements is answered by the model the
// test seeded (a double with none seeded: the template tests' world), and a 404 from it passes the
// request on to the others. The provisioner keys' organizations (state.organizations) answer last.
import { aggregatedHandlers, aggregatedWorld } from './aggregated-handlers.ts';
import type { Handler } from './handlers.ts';
import { mcpHandlers } from './mcp-handlers.ts';
import { provisionerKeyHandlers } from './provisioner-key-handlers.ts';
import type { CoderApiDoubleState } from './state.ts';
import { workspaceHandlers } from './workspace-handlers.ts';

function seededModel(state: CoderApiDoubleState): Readonly<Record<string, Handler>> {
  const aggregated = aggregatedWorld(state);
  if (aggregated.templates.length || aggregated.workspaces.length) return aggregatedHandlers;
  if (state.templates.length || state.workspaces.length) return mcpHandlers;
  return workspaceHandlers;
}

const models = [workspaceHandlers, mcpHandlers, aggregatedHandlers, { getOrganization: provisionerKeyHandlers.getOrganization! }];

export const workspaceModelHandlers: Readonly<Record<string, Handler>> = Object.fromEntries(
  [...new Set(models.flatMap((model) => Object.keys(model)))].map((operation) => {
    const handler: Handler = (ctx) => {
      const seeded = seededModel(ctx.state);
      const inOrder = [seeded, ...models.filter((model) => model !== seeded)].flatMap((model) => model[operation] ?? []);
      let answer = inOrder[0]!(ctx);
      for (const next of inOrder.slice(1)) {
        if (answer.status !== 404) break;
        answer = next(ctx);
      }
      return answer;
    };
    return [operation, handler];
  }),
);
