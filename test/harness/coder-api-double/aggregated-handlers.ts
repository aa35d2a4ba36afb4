// Organizations, templates and workspaces as the aggregated API server reads and writes them (issue 16).
// Kept apart from the template-test world: where an operationId is also implemented there, that handler
// wins at merge and seedAggregatedWorld() is the one place to point at its state.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import type { Answer, Handler } from './handlers.ts';
import type { CoderApiDoubleState } from './state.ts';

type Schemas = components['schemas'];

export interface AggregatedWorld {
  organizations: Schemas['Organization'][];
  templates: Schemas['Template'][];
  versions: { id: string; template_id: string; organization_id: string; name: string }[];
  workspaces: Schemas['Workspace'][];
  /** Users by name (the owners of workspaces). */
  users: Map<string, string>;
}

const worlds = new WeakMap<CoderApiDoubleState, AggregatedWorld>();

export function aggregatedWorld(state: CoderApiDoubleState): AggregatedWorld {
  let world = worlds.get(state);
  if (!world) {
    world = { organizations: [], templates: [], versions: [], workspaces: [], users: new Map() };
    worlds.set(state, world);
  }
  return world;
}

const now = () => new Date().toISOString();
const notFound: Answer = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };

/** An organization with one template (and its active version) and `workspaces` workspaces of `owner`. */
export function seedAggregatedWorld(
  state: CoderApiDoubleState,
  seed: { organization: string; template: string; owner: string; workspaces: string[] },
): { organization: Schemas['Organization']; template: Schemas['Template']; versionId: string } {
  const world = aggregatedWorld(state);
  let organization = world.organizations.find((o) => o.name === seed.organization);
  if (!organization) {
    organization = {
      id: randomUUID(),
      name: seed.organization,
      is_default: world.organizations.length === 0,
      created_at: now(),
      updated_at: now(),
    };
    world.organizations.push(organization);
  }
  const versionId = randomUUID();
  const template: Schemas['Template'] = {
    id: randomUUID(),
    name: seed.template,
    organization_id: organization.id,
    organization_name: organization.name,
    active_version_id: versionId,
    display_name: seed.template,
    description: '',
    icon: '',
    deprecated: false,
    created_at: now(),
    updated_at: now(),
  };
  world.templates.push(template);
  world.versions.push({ id: versionId, template_id: template.id, organization_id: organization.id, name: 'v1' });
  if (!world.users.has(seed.owner)) world.users.set(seed.owner, randomUUID());
  for (const name of seed.workspaces) addWorkspace(world, organization, template, seed.owner, name, 'start');
  return { organization, template, versionId };
}

function build(workspaceId: string, versionId: string, transition: 'start' | 'stop' | 'delete', number: number): Schemas['WorkspaceBuild'] {
  const status = transition === 'start' ? 'running' : transition === 'stop' ? 'stopped' : 'deleting';
  return {
    id: randomUUID(),
    workspace_id: workspaceId,
    build_number: number,
    transition,
    status,
    template_version_id: versionId,
    created_at: now(),
    updated_at: now(),
    job: { id: randomUUID(), status: transition === 'delete' ? 'running' : 'succeeded' },
  } as Schemas['WorkspaceBuild'];
}

function addWorkspace(
  world: AggregatedWorld,
  organization: Schemas['Organization'],
  template: Schemas['Template'],
  owner: string,
  name: string,
  transition: 'start' | 'stop',
  versionId = template.active_version_id,
): Schemas['Workspace'] {
  const id = randomUUID();
  const ws: Schemas['Workspace'] = {
    id,
    name,
    owner_id: world.users.get(owner)!,
    owner_name: owner,
    organization_id: organization.id,
    organization_name: organization.name,
    template_id: template.id,
    template_name: template.name,
    latest_build: build(id, versionId, transition, 1),
    created_at: now(),
    updated_at: now(),
    last_used_at: now(),
    ttl_ms: null,
    autostart_schedule: null,
  };
  world.workspaces.push(ws);
  return ws;
}

const orgOf = (world: AggregatedWorld, ref: unknown) => world.organizations.find((o) => o.id === ref || o.name === ref);

export const aggregatedHandlers: Record<string, Handler> = {
  getOrganization: ({ state, params }) => {
    const org = orgOf(aggregatedWorld(state), params.organization);
    return org ? { status: 200, body: org } : notFound;
  },

  listTemplates: ({ state }) => ({ status: 200, body: aggregatedWorld(state).templates }),

  getTemplateByName: ({ state, params }) => {
    const world = aggregatedWorld(state);
    const org = orgOf(world, params.organization);
    const t = world.templates.find((x) => x.organization_id === org?.id && x.name === params.templateName);
    return t ? { status: 200, body: t } : notFound;
  },

  getTemplateVersion: ({ state, params }) => {
    const v = aggregatedWorld(state).versions.find((x) => x.id === params.templateVersion);
    return v ? { status: 200, body: { ...v, job: { id: randomUUID(), status: 'succeeded' } } } : notFound;
  },

  createTemplate: ({ state, params, body }) => {
    const world = aggregatedWorld(state);
    const org = orgOf(world, params.organization);
    const req = body as Schemas['CreateTemplateRequest'];
    if (!org) return notFound;
    if (world.templates.some((t) => t.organization_id === org.id && t.name === req.name))
      return { status: 409, body: { message: `Template with name "${req.name}" already exists.` } };
    if (!world.versions.some((v) => v.id === req.template_version_id))
      return { status: 404, body: { message: 'Template version not found.' } };
    const t: Schemas['Template'] = {
      id: randomUUID(),
      name: req.name,
      organization_id: org.id,
      organization_name: org.name,
      active_version_id: req.template_version_id,
      display_name: req.display_name ?? '',
      description: req.description ?? '',
      icon: req.icon ?? '',
      deprecated: false,
      created_at: now(),
      updated_at: now(),
    };
    world.templates.push(t);
    return { status: 201, body: t };
  },

  updateTemplateMetadata: ({ state, params, body }) => {
    const t = aggregatedWorld(state).templates.find((x) => x.id === params.template);
    if (!t) return notFound;
    Object.assign(t, body as object, { updated_at: now() });
    return { status: 200, body: t };
  },

  deleteTemplate: ({ state, params }) => {
    const world = aggregatedWorld(state);
    const index = world.templates.findIndex((x) => x.id === params.template);
    if (index < 0) return notFound;
    if (world.workspaces.some((w) => w.template_id === params.template))
      return { status: 400, body: { message: 'All workspaces must be deleted before a template can be removed.' } };
    world.templates.splice(index, 1);
    return { status: 200, body: { message: 'Template has been deleted!' } };
  },

  listWorkspaces: ({ state }) => {
    const workspaces = aggregatedWorld(state).workspaces;
    return { status: 200, body: { workspaces, count: workspaces.length } };
  },

  getWorkspaceByOwnerAndName: ({ state, params }) => {
    const ws = aggregatedWorld(state).workspaces.find((w) => w.owner_name === params.user && w.name === params.workspaceName);
    return ws ? { status: 200, body: ws } : notFound;
  },

  createUserWorkspace: ({ state, params, body }) => {
    const world = aggregatedWorld(state);
    const req = body as Schemas['CreateWorkspaceRequest'];
    const owner = String(params.user);
    if (!world.users.has(owner)) return { status: 400, body: { message: `User "${owner}" not found.` } };
    const version = req.template_version_id ? world.versions.find((v) => v.id === req.template_version_id) : undefined;
    const template = world.templates.find((t) => t.id === (req.template_id ?? version?.template_id));
    if (!template) return { status: 400, body: { message: 'Template not found.' } };
    if (world.workspaces.some((w) => w.owner_name === owner && w.name === req.name))
      return { status: 409, body: { message: `Workspace "${req.name}" already exists.` } };
    const org = world.organizations.find((o) => o.id === template.organization_id)!;
    const ws = addWorkspace(world, org, template, owner, req.name, 'start', version?.id);
    if (req.ttl_ms !== undefined) ws.ttl_ms = req.ttl_ms;
    if (req.autostart_schedule) ws.autostart_schedule = req.autostart_schedule;
    return { status: 201, body: ws };
  },

  createWorkspaceBuild: ({ state, params, body }) => {
    const world = aggregatedWorld(state);
    const ws = world.workspaces.find((w) => w.id === params.workspace);
    if (!ws) return notFound;
    const transition = (body as Schemas['CreateWorkspaceBuildRequest']).transition;
    const next = build(ws.id, ws.latest_build.template_version_id, transition, ws.latest_build.build_number + 1);
    ws.latest_build = next;
    ws.updated_at = now();
    // The delete build finishes at once here: the workspace is gone for the next read.
    if (transition === 'delete') world.workspaces.splice(world.workspaces.indexOf(ws), 1);
    return { status: 201, body: next };
  },
};
