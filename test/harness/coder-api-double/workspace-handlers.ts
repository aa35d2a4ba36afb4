// The double's users, organizations, templates, versions, workspaces, builds and build logs, as Coder answers
// them for the template-test controller (404 with Coder's message, 410 for a deleted workspace, 409 for a
// taken name or a running build, 406 for a version still importing, 412 for a cancel that comes too late).
import type { components } from '../../../generated/coder-api.ts';
import type { Answer, Handler } from './handlers.ts';
import type { CoderApiDoubleState } from './state.ts';
import { advanceImport } from './template-handlers.ts';
import { listTemplatesAnswer } from './template-search.ts';
import {
  advance,
  defaultBuildScript,
  deleteTemplate,
  listLiveWorkspaces,
  newBuild,
  organizationByIdOrName,
  organizationOfParam,
  queued,
  workspaceAnswer,
  workspaceFields,
  type StoredWorkspace,
  type WorkspaceFilter,
} from './workspace-world.ts';

type Schemas = components['schemas'];

const notFound: Answer = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function findUser(state: CoderApiDoubleState, ref: string, me?: Schemas['User']): Schemas['User'] | undefined {
  if (ref === 'me') return me;
  return state.users.find((u) => u.id === ref || same(u.username, ref));
}

/**
 * Coder's answer for a {user} of the path that names no user: 400, not 404, so that it tells nothing about
 * which users exist (coder/coder v2.26.1 coderd/httpmw/userparam.go, also behind the organization-member
 * routes of a user's workspaces).
 */
const unknownUser = (ref: string): Answer => ({
  status: 400,
  body: { message: '"user" must be an existing uuid or username.', detail: `queried user=${JSON.stringify(ref)}` },
});

/**
 * The filter of a workspace search query ("owner:alice organization:coder template:docker name:dev status:running", a
 * bare word searches names); a string names the unknown key; undefined matches nothing (an unknown owner).
 */
function workspaceFilter(state: CoderApiDoubleState, q: string, me?: Schemas['User']): WorkspaceFilter | string | undefined {
  const filter: WorkspaceFilter = {};
  for (const term of q.split(/\s+/).filter(Boolean)) {
    const [key, value] = term.includes(':') ? [term.slice(0, term.indexOf(':')), term.slice(term.indexOf(':') + 1)] : ['name', term];
    if (key === 'owner') {
      const owner = findUser(state, value, me);
      if (!owner) return undefined;
      filter.ownerId = owner.id;
    } else if (key === 'organization') {
      const org = organizationByIdOrName(state.world, value);
      if (!org) return undefined;
      filter.organizationId = org.id;
    } else if (key === 'template') filter.templateName = value;
    else if (key === 'status') filter.status = value;
    else if (key === 'name') filter.nameContains = value;
    else return key;
  }
  return filter;
}

function findWorkspace(state: CoderApiDoubleState, id: string): StoredWorkspace | undefined {
  return state.world.workspaces.find((w) => w.workspace.id === id);
}

const jobActive = (status: string) => status === 'pending' || status === 'running' || status === 'canceling';

export const workspaceHandlers: Readonly<Record<string, Handler>> = {
  getUser: ({ state, params, user }) => {
    const found = findUser(state, String(params.user), user);
    return found ? { status: 200, body: found } : unknownUser(String(params.user));
  },

  getOrganization: ({ state, params }) => {
    const org = organizationOfParam(state.world, String(params.organization));
    return org ? { status: 200, body: org } : notFound;
  },

  // coder/coder v2.26.1 coderd/users.go userRoles: the stored site roles, and per membership the stored
  // organization roles keyed by organization id (memberships of no organization are absent).
  getUserRoles: ({ state, params, user }) => {
    const found = findUser(state, String(params.user), user);
    if (!found) return unknownUser(String(params.user));
    const memberships = state.world.members.filter((m) => m.user_id === found.id);
    return {
      status: 200,
      body: {
        roles: (found.roles ?? []).map((r) => r.name),
        organization_roles: Object.fromEntries(memberships.map((m) => [m.organization_id, m.roles.map((r) => r.name)])),
      },
    };
  },

  getTemplateByName: ({ state, params }) => {
    const org = organizationOfParam(state.world, String(params.organization));
    const template = state.world.templates.find((t) => t.organization_id === org?.id && same(t.name, String(params.templateName)));
    return template ? { status: 200, body: template } : notFound;
  },

  listTemplates: ({ state, params }) => listTemplatesAnswer(state, typeof params.q === 'string' ? params.q : ''),

  listOrganizationTemplates: ({ state, params }) => {
    const org = organizationOfParam(state.world, String(params.organization));
    return org ? listTemplatesAnswer(state, '', org.id) : notFound;
  },

  getTemplate: ({ state, params }) => {
    const template = state.world.templates.find((t) => t.id === params.template);
    return template ? { status: 200, body: template } : notFound;
  },

  deleteTemplate: ({ state, params }) => {
    const outcome = deleteTemplate(state.world, String(params.template));
    if (outcome === 'not-found') return notFound;
    if (outcome === 'in-use') return { status: 400, body: { message: 'All workspaces must be deleted before a template can be removed.' } };
    return { status: 200, body: { message: 'Template has been deleted!' } };
  },

  getTemplateVersionByName: ({ state, params }) => {
    const version = state.world.templateVersions.find((v) => v.template_id === params.template && v.name === params.templateVersionName);
    return version ? { status: 200, body: version } : notFound;
  },

  getTemplateVersion: ({ state, params }) => {
    const version = state.world.templateVersions.find((v) => v.id === params.templateVersion);
    if (version) advanceImport(state, version);
    return version ? { status: 200, body: version } : notFound;
  },

  createUserWorkspace: ({ state, params, body, user }) => {
    const owner = findUser(state, String(params.user), user);
    if (!owner) return unknownUser(String(params.user));
    const request = body as Schemas['CreateWorkspaceRequest'];
    const template = state.world.templates.find((t) => t.id === request.template_id);
    const versionId = request.template_version_id ?? template?.active_version_id;
    const version = state.world.templateVersions.find((v) => v.id === versionId);
    if (!version) return { status: 400, body: { message: 'Template version not found.' } };
    if (version.archived) return { status: 400, body: { message: 'Archived template versions cannot be used to make a workspace.' } };
    if (version.job.status !== 'succeeded') return { status: 406, body: { message: 'Template version is not imported yet.' } };
    if (state.world.workspaces.some((w) => !w.deleted && w.workspace.owner_id === owner.id && w.workspace.name === request.name)) {
      return { status: 409, body: { message: `Workspace "${request.name}" already exists.` } };
    }
    const owningTemplate = state.world.templates.find((t) => t.id === version.template_id)!;
    const stored: StoredWorkspace = {
      workspace: { ...workspaceFields(owningTemplate, owner, request.name), automatic_updates: request.automatic_updates ?? 'never' },
      builds: [],
      deleted: false,
      script: state.world.buildScripts.get(version.id) ?? defaultBuildScript,
      reads: 0,
      deletesFailed: 0,
    };
    const build = newBuild(stored, 'start', user!.id, version.id);
    stored.builds.unshift(build);
    queued(stored, build);
    state.world.workspaces.push(stored);
    return { status: 201, body: workspaceAnswer(stored) };
  },

  listWorkspaces: ({ state, params, user }) => {
    const filter = workspaceFilter(state, typeof params.q === 'string' ? params.q : '', user);
    if (typeof filter === 'string') {
      return {
        status: 400,
        body: {
          message: 'Invalid workspace search query.',
          validations: [{ field: 'q', detail: `Query param "${filter}" is not a valid query param` }],
        },
      };
    }
    const workspaces = filter ? listLiveWorkspaces(state.world, filter) : [];
    const offset = typeof params.offset === 'number' ? params.offset : 0;
    const limit = typeof params.limit === 'number' && params.limit > 0 ? params.limit : workspaces.length;
    return { status: 200, body: { workspaces: workspaces.slice(offset, offset + limit), count: workspaces.length } };
  },

  getWorkspaceByOwnerAndName: ({ state, params, user }) => {
    const owner = findUser(state, String(params.user), user);
    if (!owner) return unknownUser(String(params.user));
    const matches = state.world.workspaces.filter(
      (w) =>
        w.workspace.owner_id === owner?.id && w.workspace.name === params.workspaceName && (!w.deleted || params.include_deleted === true),
    );
    const stored = matches.find((w) => !w.deleted) ?? matches.at(-1);
    return stored ? { status: 200, body: workspaceAnswer(stored) } : notFound;
  },

  getWorkspace: ({ state, params }) => {
    const stored = findWorkspace(state, String(params.workspace));
    if (!stored) return notFound;
    advance(state.world, stored);
    if (stored.deleted && params.include_deleted !== true) return { status: 410, body: { message: 'Workspace was deleted.' } };
    return { status: 200, body: workspaceAnswer(stored) };
  },

  listWorkspaceBuilds: ({ state, params }) => {
    const stored = findWorkspace(state, String(params.workspace));
    if (!stored) return notFound;
    const limit = typeof params.limit === 'number' && params.limit > 0 ? params.limit : 25;
    return { status: 200, body: stored.builds.slice(0, limit) };
  },

  createWorkspaceBuild: ({ state, params, body, user }) => {
    const stored = findWorkspace(state, String(params.workspace));
    if (!stored || stored.deleted) return notFound;
    const latest = stored.builds[0]!;
    if (jobActive(latest.job.status)) return { status: 409, body: { message: 'A workspace build is already active.' } };
    const request = body as Schemas['CreateWorkspaceBuildRequest'];
    const build = newBuild(stored, request.transition, user!.id, request.template_version_id ?? latest.template_version_id);
    stored.builds.unshift(build);
    stored.reads = 0;
    queued(stored, build);
    return { status: 201, body: build };
  },

  cancelWorkspaceBuild: ({ state, params }) => {
    const stored = state.world.workspaces.find((w) => w.builds.some((b) => b.id === params.workspaceBuild));
    const build = stored?.builds.find((b) => b.id === params.workspaceBuild);
    if (!build) return notFound;
    if (params.expect_status !== undefined && build.job.status !== params.expect_status) {
      return { status: 412, body: { message: `Job is not ${String(params.expect_status)}.` } };
    }
    if (build.job.status !== 'pending' && build.job.status !== 'running')
      return { status: 400, body: { message: 'Job is not cancelable.' } };
    build.job = { ...build.job, status: 'canceling', canceled_at: new Date().toISOString() };
    build.status = 'canceling';
    return { status: 200, body: { message: 'Job has been marked as canceled.' } };
  },

  listWorkspaceBuildLogs: ({ state, params }) => {
    const exists = state.world.workspaces.some((w) => w.builds.some((b) => b.id === params.workspaceBuild));
    if (!exists) return notFound;
    return { status: 200, body: state.world.buildLogs.get(String(params.workspaceBuild)) ?? [] };
  },
};
