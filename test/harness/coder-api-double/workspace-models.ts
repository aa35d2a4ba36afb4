// Two models of Coder's organizations, templates and workspaces remain in the double: the one world
// (workspace-world.ts: template tests and the MCP server) and the aggregated API server's. Until that
// one moves onto the world too, an operation both implement is answered by the model the test seeded
// (a double with none seeded: the world), and a 404 from it passes the request on to the other. The
// provisioner keys' organizations (state.organizations) answer last.
import { aggregatedHandlers, aggregatedWorld } from './aggregated-handlers.ts';
import type { Handler } from './handlers.ts';
import { provisionerKeyHandlers } from './provisioner-key-handlers.ts';
import type { CoderApiDoubleState } from './state.ts';
import { templateHandlers } from './template-handlers.ts';
import { workspaceHandlers } from './workspace-handlers.ts';

/** The one world's handlers. */
const worldModel: Readonly<Record<string, Handler>> = { ...workspaceHandlers, ...templateHandlers };

function seededModel(state: CoderApiDoubleState): Readonly<Record<string, Handler>> {
  const aggregated = aggregatedWorld(state);
  if (aggregated.templates.length || aggregated.workspaces.length) return aggregatedHandlers;
  return worldModel;
}

const models = [worldModel, aggregatedHandlers, { getOrganization: provisionerKeyHandlers.getOrganization! }];

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
