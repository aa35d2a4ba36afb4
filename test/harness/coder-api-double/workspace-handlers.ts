// The double's users, organizations, templates, versions, workspaces, builds and build logs, as Coder answers
// them (400 for a {user} that names no user, 404 with Coder's message, 410 for a deleted workspace, 409 for
// a taken name or a running build, 406 for a version still importing, 412 for a cancel that comes too late).
import type { components } from '../../../generated/coder-api.ts';
import type { Answer, Handler } from './handlers.ts';
import type { CoderApiDoubleState } from './state.ts';
import { advanceImport } from './template-handlers.ts';
import { listTemplatesAnswer } from './template-search.ts';
import { advance, cancelBuild, jobActive, newBuild, queued, queuedAnswer } from './workspace-builds.ts';
import { listWorkspacesAnswer } from './workspace-search.ts';
import {
  defaultBuildScript,
  deleteTemplate,
  organizationOfParam,
  workspaceAnswer,
  workspaceFields,
  type StoredWorkspace,
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

function findWorkspace(state: CoderApiDoubleState, id: string): StoredWorkspace | undefined {
  return state.world.workspaces.find((w) => w.workspace.id === id);
}

function findBuild(state: CoderApiDoubleState, id: string): { stored: StoredWorkspace; build: Schemas['WorkspaceBuild'] } | undefined {
  for (const stored of state.world.workspaces) {
    const build = stored.builds.find((b) => b.id === id);
    if (build) return { stored, build };
  }
  return undefined;
}

/** coder/coder v2.26.1 coderd/httpapi/httpapi.go ResourceForbiddenResponse */
const forbidden: Answer = {
  status: 403,
  body: {
    message: 'Forbidden.',
    detail:
      "You don't have permission to view this content. If you believe this is a mistake, please contact your administrator or try signing in with different credentials.",
  },
};

/** A refusal of wsbuilder, whose detail repeats the message (coder/coder v2.26.1 coderd/wsbuilder/wsbuilder.go BuildError). */
function buildError(status: number, message: string, cause = message): Answer {
  return { status, body: { message, detail: cause } };
}

/**
 * The template a workspace create names, directly or through its version (coder/coder v2.26.1
 * coderd/workspaces.go requestTemplate): 400 for an unknown one; an archived version is refused with 500.
 */
function requestTemplate(
  state: CoderApiDoubleState,
  request: Schemas['CreateWorkspaceRequest'],
): { template: Schemas['Template'] } | Answer {
  let templateId = request.template_id;
  if (!templateId) {
    const version = state.world.templateVersions.find((v) => v.id === request.template_version_id);
    if (!version) {
      return {
        status: 400,
        body: {
          message: `Template version ${JSON.stringify(request.template_version_id)} doesn't exist.`,
          validations: [{ field: 'template_version_id', detail: 'template not found' }],
        },
      };
    }
    if (version.archived) {
      return {
        status: 500,
        body: {
          message: 'Archived template versions cannot be used to make a workspace.',
          validations: [{ field: 'template_version_id', detail: 'template version archived' }],
        },
      };
    }
    templateId = version.template_id ?? undefined;
  }
  const template = state.world.templates.find((t) => t.id === templateId);
  if (template) return { template };
  return {
    status: 400,
    body: {
      message: `Template ${JSON.stringify(templateId)} doesn't exist.`,
      validations: [{ field: 'template_id', detail: 'template not found' }],
    },
  };
}

/**
 * A deprecated template makes no new workspace, licensed or not (coder/coder v2.26.1 coderd/workspaces.go
 * createWorkspace; coderd/database/dbauthz/accesscontrol.go AGPLTemplateAccessControlStore keeps the message).
 */
function deprecationRefusal(template: Schemas['Template']): Answer | undefined {
  const message = template.deprecation_message ?? '';
  if (message === '' && template.deprecated !== true) return undefined;
  return {
    status: 400,
    body: {
      message: `Template ${JSON.stringify(template.name)} has been deprecated, and cannot be used to create a new workspace.`,
      // codersdk.Response omits an empty detail (json:"detail,omitempty").
      ...(message ? { detail: message } : {}),
    },
  };
}

const minute = 60_000;

/**
 * The autostart schedule and TTL a new workspace keeps (coder/coder v2.26.1 coderd/workspaces.go
 * createWorkspace, validWorkspaceSchedule, validWorkspaceTTLMillis): a weekly cron ("CRON_TZ=<zone> " then
 * minute, hour, *, *, days of the week; coderd/schedule/cron/cron.go Weekly), a TTL cut to whole minutes of one
 * minute to 30 days, the template's default TTL when none is given.
 */
function workspaceSchedule(
  template: Schemas['Template'],
  request: Schemas['CreateWorkspaceRequest'],
): { fields: Record<string, unknown> } | Answer {
  const fields: Record<string, unknown> = {};
  const cron = request.autostart_schedule;
  if (cron) {
    const spec = cron
      .replace(/^CRON_TZ=\S+\s+/, '')
      .trim()
      .split(/\s+/);
    const problem =
      spec.length !== 5
        ? 'expected schedule to consist of 5 fields with an optional CRON_TZ=<timezone> prefix'
        : spec[2] !== '*' || spec[3] !== '*'
          ? 'expected day-of-month and month to be *'
          : undefined;
    if (problem) {
      const detail = `validate weekly schedule: ${problem}`;
      return { status: 400, body: { message: 'Invalid Autostart Schedule.', validations: [{ field: 'schedule', detail }] } };
    }
    fields.autostart_schedule = cron;
  }
  const ttl = request.ttl_ms ? Math.floor(request.ttl_ms / minute) * minute : (template.default_ttl_ms ?? 0);
  if (request.ttl_ms && (ttl < minute || ttl > 30 * 24 * 60 * minute)) {
    const detail = ttl < minute ? 'time until shutdown must be at least one minute' : 'time until shutdown must be less than 30 days';
    return { status: 400, body: { message: 'Invalid Workspace Time to Shutdown.', validations: [{ field: 'ttl_ms', detail }] } };
  }
  if (ttl) fields.ttl_ms = ttl;
  return { fields };
}

/** A version whose import did not succeed builds nothing (coder/coder v2.26.1 coderd/wsbuilder/wsbuilder.go checkTemplateJobStatus). */
function importRefusal(version: Schemas['TemplateVersion']): Answer | undefined {
  const job = version.job;
  if (job.status === 'pending' || job.status === 'running')
    return buildError(406, `The provided template version is ${job.status}. Wait for it to complete importing!`);
  if (job.status === 'failed' || job.status === 'canceled')
    return buildError(
      400,
      `The provided template version ${JSON.stringify(version.name)} has failed to import: ${JSON.stringify(job.error ?? '')}. You cannot build workspaces with it!`,
    );
  return undefined;
}

export const workspaceHandlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.26.1 coderd/users.go userByName (coderd/httpmw/userparam.go)
  getUser: ({ state, params, user }) => {
    const found = findUser(state, String(params.user), user);
    return found ? { status: 200, body: found } : unknownUser(String(params.user));
  },

  // coder/coder v2.26.1 coderd/organizations.go organization (coderd/httpmw/organizationparam.go)
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

  // coder/coder v2.26.1 coderd/templates.go templateByOrganizationAndName
  getTemplateByName: ({ state, params }) => {
    const org = organizationOfParam(state.world, String(params.organization));
    const template = state.world.templates.find((t) => t.organization_id === org?.id && same(t.name, String(params.templateName)));
    return template ? { status: 200, body: template } : notFound;
  },

  // coder/coder v2.26.1 coderd/templates.go fetchTemplates (template-search.ts)
  listTemplates: ({ state, params }) => listTemplatesAnswer(state, typeof params.q === 'string' ? params.q : ''),

  // coder/coder v2.26.1 coderd/templates.go templatesByOrganization: fetchTemplates with q, the organization
  // of the path in place of any organization term.
  listOrganizationTemplates: ({ state, params }) => {
    const org = organizationOfParam(state.world, String(params.organization));
    return org ? listTemplatesAnswer(state, typeof params.q === 'string' ? params.q : '', org.id) : notFound;
  },

  // coder/coder v2.26.1 coderd/templates.go template
  getTemplate: ({ state, params }) => {
    const template = state.world.templates.find((t) => t.id === params.template);
    return template ? { status: 200, body: template } : notFound;
  },

  // coder/coder v2.26.1 coderd/templates.go deleteTemplate: refused (400) while a workspace that is not
  // deleted was made from it; afterwards the template answers 404 (coderd/httpmw/templateparam.go).
  deleteTemplate: ({ state, params }) => {
    const outcome = deleteTemplate(state.world, String(params.template));
    if (outcome === 'not-found') return notFound;
    if (outcome === 'in-use') return { status: 400, body: { message: 'All workspaces must be deleted before a template can be removed.' } };
    return { status: 200, body: { message: 'Template has been deleted!' } };
  },

  // coder/coder v2.26.1 coderd/templateversions.go templateVersionByName
  getTemplateVersionByName: ({ state, params }) => {
    const version = state.world.templateVersions.find((v) => v.template_id === params.template && v.name === params.templateVersionName);
    return version ? { status: 200, body: version } : notFound;
  },

  // coder/coder v2.26.1 coderd/templateversions.go templateVersion
  getTemplateVersion: ({ state, params }) => {
    const version = state.world.templateVersions.find((v) => v.id === params.templateVersion);
    if (version) advanceImport(state, version);
    return version ? { status: 200, body: version } : notFound;
  },

  // coder/coder v2.26.1 coderd/workspaces.go postUserWorkspaces and createWorkspace (requestTemplate;
  // coderd/wsbuilder/wsbuilder.go for the version's import job)
  createUserWorkspace: ({ state, params, body, user }) => {
    const owner = findUser(state, String(params.user), user);
    if (!owner) return unknownUser(String(params.user));
    const request = body as Schemas['CreateWorkspaceRequest'];
    const requested = requestTemplate(state, request);
    if (!('template' in requested)) return requested;
    const { template } = requested;
    const deprecated = deprecationRefusal(template);
    if (deprecated) return deprecated;
    const schedule = workspaceSchedule(template, request);
    if ('status' in schedule) return schedule;
    const versionId = request.template_version_id ?? template.active_version_id;
    const version = state.world.templateVersions.find((v) => v.id === versionId)!;
    const taken = state.world.workspaces.some(
      (w) => !w.deleted && w.workspace.owner_id === owner.id && same(w.workspace.name, request.name),
    );
    if (taken) {
      return {
        status: 409,
        body: {
          message: `Workspace ${JSON.stringify(request.name)} already exists.`,
          validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
        },
      };
    }
    const refused = importRefusal(version);
    if (refused) return refused;
    const stored: StoredWorkspace = {
      workspace: {
        ...workspaceFields(template, owner, request.name),
        automatic_updates: request.automatic_updates ?? 'never',
        ...schedule.fields,
      },
      builds: [],
      deleted: false,
      script: state.world.buildScripts.get(version.id) ?? defaultBuildScript,
      reads: 0,
      deletesFailed: 0,
    };
    const build = newBuild(state.world, stored, 'start', user!, version.id);
    stored.builds.unshift(build);
    queued(stored, build);
    state.world.workspaces.push(stored);
    return { status: 201, body: { ...workspaceAnswer(state.world, stored)!, latest_build: queuedAnswer(build) } };
  },

  // coder/coder v2.26.1 coderd/workspaces.go workspaces (workspace-search.ts)
  listWorkspaces: ({ state, params, user }) =>
    listWorkspacesAnswer(
      state,
      typeof params.q === 'string' ? params.q : '',
      { limit: typeof params.limit === 'number' ? params.limit : 0, offset: typeof params.offset === 'number' ? params.offset : 0 },
      user,
    ),

  // coder/coder v2.26.1 coderd/workspaces.go workspaceByOwnerAndName: the live workspace of that name, else
  // with include_deleted the newest deleted one; 404 also once its template is deleted.
  getWorkspaceByOwnerAndName: ({ state, params, user }) => {
    const owner = findUser(state, String(params.user), user);
    if (!owner) return unknownUser(String(params.user));
    const named = state.world.workspaces.filter(
      (w) => w.workspace.owner_id === owner.id && same(w.workspace.name, String(params.workspaceName)),
    );
    const stored = named.find((w) => !w.deleted) ?? (params.include_deleted === true ? named.filter((w) => w.deleted).at(-1) : undefined);
    const answer = stored && workspaceAnswer(state.world, stored);
    return answer ? { status: 200, body: answer } : notFound;
  },

  // coder/coder v2.26.1 coderd/workspaces.go workspace (coderd/httpmw/workspaceparam.go finds deleted ones too)
  getWorkspace: ({ state, params }) => {
    const stored = findWorkspace(state, String(params.workspace));
    if (!stored) return notFound;
    advance(state.world, stored);
    if (stored.deleted && params.include_deleted !== true) {
      return {
        status: 410,
        body: {
          message: `Workspace ${JSON.stringify(stored.workspace.id)} was deleted, you can view this workspace by specifying '?deleted=true' and trying again.`,
        },
      };
    }
    const answer = workspaceAnswer(state.world, stored);
    return answer ? { status: 200, body: answer } : forbidden;
  },

  // coder/coder v2.26.1 coderd/workspacebuilds.go workspaceBuilds: newest first, limit 0 (or none) for all
  listWorkspaceBuilds: ({ state, params }) => {
    const stored = findWorkspace(state, String(params.workspace));
    if (!stored) return notFound;
    const offset = typeof params.offset === 'number' ? params.offset : 0;
    const limit = typeof params.limit === 'number' && params.limit > 0 ? params.limit : undefined;
    return { status: 200, body: stored.builds.slice(offset, limit === undefined ? undefined : offset + limit) };
  },

  // coder/coder v2.26.1 coderd/workspacebuilds.go workspaceBuild (coderd/httpmw/workspacebuildparam.go):
  // a build of any workspace, deleted ones too; reading the latest build moves it on as a workspace read does.
  getWorkspaceBuild: ({ state, params }) => {
    const found = findBuild(state, String(params.workspaceBuild));
    if (!found) return notFound;
    if (found.stored.builds[0] === found.build) advance(state.world, found.stored);
    return { status: 200, body: found.build };
  },

  // coder/coder v2.26.1 coderd/workspacebuilds.go postWorkspaceBuilds (coderd/wsbuilder/wsbuilder.go
  // authorize, checkTemplateVersionMatchesTemplate, checkTemplateJobStatus, checkRunningBuild): a deleted
  // workspace takes builds too.
  createWorkspaceBuild: ({ state, params, body, user }) => {
    const stored = findWorkspace(state, String(params.workspace));
    if (!stored) return notFound;
    const request = body as Schemas['CreateWorkspaceBuildRequest'];
    const latest = stored.builds[0]!;
    const versionId = request.template_version_id ?? latest.template_version_id;
    const version = state.world.templateVersions.find((v) => v.id === versionId);
    if (!version) return buildError(400, 'template version does not exist', 'sql: no rows in result set');
    if (version.template_id !== stored.workspace.template_id) return buildError(400, "template version doesn't match template");
    const refused = importRefusal(version);
    if (refused) return refused;
    if (jobActive(latest.job.status)) return buildError(409, 'A workspace build is already active.');
    const build = newBuild(state.world, stored, request.transition, user!, versionId);
    stored.builds.unshift(build);
    stored.reads = 0;
    queued(stored, build);
    return { status: 201, body: queuedAnswer(build) };
  },

  // coder/coder v2.26.1 coderd/workspacebuilds.go patchCancelWorkspaceBuild (workspace-builds.ts cancelBuild)
  cancelWorkspaceBuild: ({ state, params }) => {
    const found = findBuild(state, String(params.workspaceBuild));
    if (!found) return notFound;
    const outcome = cancelBuild(found.build, typeof params.expect_status === 'string' ? params.expect_status : undefined);
    return { status: outcome.status, body: { message: outcome.message } };
  },

  // coder/coder v2.26.1 coderd/workspacebuilds.go workspaceBuildLogs (without follow; build-log-socket.ts follows)
  listWorkspaceBuildLogs: ({ state, params }) => {
    if (!findBuild(state, String(params.workspaceBuild))) return notFound;
    return { status: 200, body: state.world.buildLogs.get(String(params.workspaceBuild)) ?? [] };
  },
};
