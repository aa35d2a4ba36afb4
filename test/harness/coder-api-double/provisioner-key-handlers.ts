// Provisioner keys (CoderProvisioner) of the world's organizations, as coder/coder v2.26.1
// enterprise/coderd/provisionerkeys.go answers them: key material only in the create answer, names unique
// per organization ignoring case, reserved names refused. enterprise/coderd/coderd.go mounts the routes
// behind the API key, the {organization} (404 first) and RequireFeatureMW(external_provisioner_daemons),
// so without that feature every call is Coder's 403, as the real unlicensed server answers.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Handler, HandlerContext } from './handlers.ts';
import { premiumRefusal } from './premium-feature.ts';
import { organizationOfParam } from './workspace-world.ts';

const reservedKeyNames = ['built-in', 'user-auth', 'psk'];

/** The {organization} of the path in the world's organizations, by Coder's rules ("default" is the default one). */
function organizationOf({ state, params }: HandlerContext) {
  return organizationOfParam(state.world, String(params.organization));
}

const organizationNotFound = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };

/** Coder lets only owners skip its rate limit; anyone else who asks gets 428. */
function refusedBypass({ params, user }: HandlerContext) {
  const asked = params['X-Coder-Bypass-Ratelimit'] === 'true';
  const owner = user?.roles?.some((r) => r.name === 'owner');
  return asked && !owner ? { status: 428, body: { message: 'Only owners may bypass the rate limit.' } } : undefined;
}

/** The organization of the path, or Coder's answer before the handler runs: 428, 404, then the premium 403. */
function organizationAndFeature(ctx: HandlerContext) {
  const refused = refusedBypass(ctx);
  if (refused) return { refused };
  const org = organizationOf(ctx);
  if (!org) return { refused: organizationNotFound };
  if (!ctx.state.entitlements.features.external_provisioner_daemons?.enabled)
    return { refused: premiumRefusal('external_provisioner_daemons') };
  return { org };
}

export const provisionerKeyHandlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.26.1 enterprise/coderd/provisionerkeys.go provisionerKeys
  listProvisionerKeys: (ctx) => {
    const { org, refused } = organizationAndFeature(ctx);
    if (!org) return refused;
    return { status: 200, body: ctx.state.provisionerKeys.filter((k) => k.key.organization === org.id).map((k) => k.key) };
  },

  // coder/coder v2.26.1 enterprise/coderd/provisionerkeys.go postProvisionerKey
  createProvisionerKey: (ctx) => {
    if (!ctx.state.enterprise) return { status: 404, body: { message: 'Route not found.' } };
    const { org, refused } = organizationAndFeature(ctx);
    if (!org) return refused;
    const { name, tags } = ctx.body as { name: string; tags?: Record<string, string> };
    if (reservedKeyNames.includes(name.toLowerCase())) {
      return {
        status: 400,
        body: { message: `Name cannot be reserved name '${name}'`, validations: [{ field: 'name', detail: 'reserved' }] },
      };
    }
    const taken = ctx.state.provisionerKeys.some((k) => k.key.organization === org.id && k.key.name.toLowerCase() === name.toLowerCase());
    if (taken) return { status: 409, body: { message: `Provisioner key with name '${name}' already exists in organization` } };
    const material = randomBytes(32).toString('base64url');
    ctx.state.provisionerKeys.push({
      key: { id: randomUUID(), created_at: new Date().toISOString(), organization: org.id, name: name.toLowerCase(), tags: tags ?? {} },
      material,
    });
    return { status: 201, body: { key: material } };
  },

  // coder/coder v2.26.1 enterprise/coderd/provisionerkeys.go deleteProvisionerKey
  deleteProvisionerKey: (ctx) => {
    const { org, refused } = organizationAndFeature(ctx);
    if (!org) return refused;
    const name = String(ctx.params.provisionerKeyName).toLowerCase();
    const index = ctx.state.provisionerKeys.findIndex((k) => k.key.organization === org.id && k.key.name === name);
    if (index < 0) return { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };
    ctx.state.provisionerKeys.splice(index, 1);
    return { status: 204 };
  },
};
