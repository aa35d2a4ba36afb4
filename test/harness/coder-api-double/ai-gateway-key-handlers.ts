// AI Gateway keys (/api/v2/ai-gateway/keys) as Coder serves them from the release coder-releases.ts names:
// the key is returned only by the create, names are unique, a delete of an unknown id answers 404. Older
// versions answer 404 on every route; v2.36.0 enterprise/coderd/coderd.go mounts them behind
// RequireFeatureMW(aibridge), so without AI Gateway in the license every call is 403, as the real
// unlicensed v2.36.0 server answers.
import { randomBytes, randomUUID } from 'node:crypto';
import { coderHasFeature } from '../../../src/controllers/shared/coder-object/coder-releases.ts';
import { routeNotFound, type Handler } from './handlers.ts';
import { requireFeature } from './premium-feature.ts';

const gated =
  (handler: Handler): Handler =>
  (ctx) =>
    coderHasFeature(ctx.state.buildInfo.version, 'aiGatewayKeys') === false ? routeNotFound : requireFeature('aibridge', handler)(ctx);

export const aiGatewayKeyHandlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.36.0 enterprise/coderd/aigatewaykeys.go aiGatewayKeys
  listAIGatewayKeys: gated(({ state }) => ({ status: 200, body: state.aiGatewayKeys.map((k) => structuredClone(k.key)) })),

  // coder/coder v2.36.0 enterprise/coderd/aigatewaykeys.go postAIGatewayKey
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

  // coder/coder v2.36.0 enterprise/coderd/aigatewaykeys.go deleteAIGatewayKey
  deleteAIGatewayKey: gated(({ state, params }) => {
    const index = state.aiGatewayKeys.findIndex((k) => k.key.id === params.aiGatewayKey);
    if (index < 0) return { status: 404, body: { message: 'AI Gateway key not found.' } };
    state.aiGatewayKeys.splice(index, 1);
    return { status: 204 };
  }),
};
