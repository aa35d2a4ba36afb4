// AI Gateway keys (/api/v2/ai-gateway/keys) as Coder serves them from the release coder-releases.ts names:
// the key is returned only by the create, names are unique, a delete of an unknown id answers 404. Older
// versions answer 404 on every route.
import { randomBytes, randomUUID } from 'node:crypto';
import { coderHasFeature } from '../../../src/controllers/shared/coder-releases.ts';
import { routeNotFound, type Handler } from './handlers.ts';

const gated =
  (handler: Handler): Handler =>
  (ctx) =>
    coderHasFeature(ctx.state.buildInfo.version, 'aiGatewayKeys') === false ? routeNotFound : handler(ctx);

export const aiGatewayKeyHandlers: Readonly<Record<string, Handler>> = {
  listAIGatewayKeys: gated(({ state }) => ({ status: 200, body: state.aiGatewayKeys.map((k) => structuredClone(k.key)) })),

  createAIGatewayKey: gated(({ state, body }) => {
    const { name } = body as { name: string };
    if (state.aiGatewayKeys.some((k) => k.key.name === name)) {
      return {
        status: 400,
        body: { message: 'Key name must be unique.', validations: [{ field: 'name', detail: 'Key name must be unique' }] },
      };
    }
    const value = randomBytes(32).toString('base64url').slice(0, 43);
    const key = { id: randomUUID(), name, key_prefix: value.slice(0, 11), created_at: new Date().toISOString() };
    state.aiGatewayKeys.push({ key, value });
    return { status: 201, body: { ...key, key: value } };
  }),

  deleteAIGatewayKey: gated(({ state, params }) => {
    const index = state.aiGatewayKeys.findIndex((k) => k.key.id === params.aiGatewayKey);
    if (index < 0) return { status: 404, body: { message: 'AI Gateway key not found.' } };
    state.aiGatewayKeys.splice(index, 1);
    return { status: 204 };
  }),
};
