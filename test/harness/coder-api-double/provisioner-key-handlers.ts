// Provisioner keys (CoderProvisioner) of the world's organizations, as coder/coder v2.26.1
// enterprise/coderd/provisionerkeys.go answers them: key material only in the create answer, names unique
// per organization ignoring case, reserved names refused, the default organization's reserved keys neither
// listed nor deletable. enterprise/coderd/coderd.go mounts the routes behind the API key, the {organization}
// (404 first) and RequireFeatureMW(external_provisioner_daemons), so without that feature every call is
// Coder's 403, as the real unlicensed server answers. An AGPL build has no such routes.
import { randomBytes, randomUUID } from 'node:crypto';
import { routeNotFound, type Handler, type HandlerContext } from './handlers.ts';
import { premiumRefusal } from './premium-feature.ts';
import { organizationOfParam } from './workspace-world.ts';

// coder/coder v2.26.1 codersdk/provisionerdaemons.go ReservedProvisionerKeyNames; migration 000250 inserts
// them into the default organization only.
const reservedKeyNames = ['built-in', 'user-auth', 'psk'];

/** The {organization} of the path in the world's organizations, by Coder's rules ("default" is the default one). */
function organizationOf({ state, params }: HandlerContext) {
  return organizationOfParam(state.world, String(params.organization));
}

// coder/coder v2.26.1 coderd/httpapi/httpapi.go ResourceNotFound
const notFound = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };

/**
 * The organization of the path, or Coder's answer before the handler runs: the organization's 404, then the
 * premium 403. An AGPL Coder (coderd/coderd.go) reaches its /organizations/{organization} router, which reads
 * the organization, and answers "Route not found." there: chi runs a router's middleware before its NotFound.
 */
function organizationAndFeature(ctx: HandlerContext) {
  const org = organizationOf(ctx);
  if (!org) return { refused: notFound };
  if (!ctx.state.enterprise) return { refused: routeNotFound };
  if (!ctx.state.entitlements.features.external_provisioner_daemons?.enabled)
    return { refused: premiumRefusal('external_provisioner_daemons') };
  return { org };
}

/** Coder's 400 for a name postProvisionerKey refuses: the same text as message and as the name's detail. */
function refusedName(text: string) {
  return { status: 400, body: { message: text, validations: [{ field: 'name', detail: text }] } };
}

export const provisionerKeyHandlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.26.1 enterprise/coderd/provisionerkeys.go provisionerKeys (ListProvisionerKeysByOrganizationExcludeReserved)
  listProvisionerKeys: (ctx) => {
    const { org, refused } = organizationAndFeature(ctx);
    if (!org) return refused;
    return { status: 200, body: ctx.state.provisionerKeys.filter((k) => k.key.organization === org.id).map((k) => k.key) };
  },

  // coder/coder v2.26.1 enterprise/coderd/provisionerkeys.go postProvisionerKey
  createProvisionerKey: (ctx) => {
    const { org, refused } = organizationAndFeature(ctx);
    if (!org) return refused;
    // Go decodes a missing name as "".
    const { name = '', tags } = ctx.body as { name?: string; tags?: Record<string, string> };
    if (name === '') return refusedName('Name is required');
    // len() of a Go string counts bytes.
    if (Buffer.byteLength(name, 'utf8') > 64) return refusedName('Name must be at most 64 characters');
    if (reservedKeyNames.includes(name.toLowerCase())) return refusedName(`Name cannot be reserved name '${name}'`);
    const taken = ctx.state.provisionerKeys.some((k) => k.key.organization === org.id && k.key.name.toLowerCase() === name.toLowerCase());
    if (taken) return { status: 409, body: { message: `Provisioner key with name '${name}' already exists in organization` } };
    const material = randomBytes(32).toString('base64url');
    ctx.state.provisionerKeys.push({
      key: { id: randomUUID(), created_at: new Date().toISOString(), organization: org.id, name: name.toLowerCase(), tags: tags ?? {} },
      material,
    });
    return { status: 201, body: { key: material } };
  },

  // coder/coder v2.26.1 enterprise/coderd/provisionerkeys.go deleteProvisionerKey, after
  // coderd/httpmw/provisionerkey.go ExtractProvisionerKeyParam (GetProvisionerKeyByName: lower(name) = lower(@name))
  deleteProvisionerKey: (ctx) => {
    const { org, refused } = organizationAndFeature(ctx);
    if (!org) return refused;
    const name = String(ctx.params.provisionerKeyName).toLowerCase();
    // The reserved rows exist in the default organization only; the message names the stored (lower-case) name.
    if (org.is_default && reservedKeyNames.includes(name)) {
      return { status: 400, body: { message: `Cannot delete reserved '${name}' provisioner key` } };
    }
    const index = ctx.state.provisionerKeys.findIndex((k) => k.key.organization === org.id && k.key.name === name);
    if (index < 0) return notFound;
    ctx.state.provisionerKeys.splice(index, 1);
    return { status: 204 };
  },
};
