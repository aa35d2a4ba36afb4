// The in-memory Coder's one world, shared by template tests, the MCP server and the aggregated API:
// organizations and their members, templates and versions, workspaces with their builds, agents and build
// logs. Builds move on as the workspace or the build is read (one step per read, never by the clock),
// following the script of the template version (workspace-builds.ts): a build that fails with log lines, an
// agent that never connects, a slow or failing delete, a start that runs until it is canceled.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import { newTemplateSettings } from './template-meta.ts';
import { newBuild, setJob } from './workspace-builds.ts';

type Schemas = components['schemas'];

export interface AgentScript {
  name: string;
  /** A dev-container sub-agent of the first agent: ignored by template tests. */
  subAgent?: boolean;
  /** Workspace reads after the start build before the agent is connected and ready; never when false. */
  readyAfterReads: number | false;
  /** The lifecycle the agent ends in instead of ready (start_error, start_timeout, off, ...). */
  endsIn?: Schemas['WorkspaceAgent']['lifecycle_state'];
  /** The connection status it ends in instead of connected (timeout). */
  connectionEndsIn?: Schemas['WorkspaceAgent']['status'];
}

/** How the builds of workspaces made from a template version behave. */
export interface BuildScript {
  /** Workspace reads before the start build's job ends. */
  startReads: number;
  startFails?: { errorCode: string; logLines: string[] };
  agents: AgentScript[];
  /** Workspace reads before a delete build's job ends. */
  deleteReads: number;
  /** The first this many delete builds fail. */
  failingDeletes?: number;
  /** Builds end as they are queued, without reads: start and stop succeed, delete deletes the workspace. */
  instant?: boolean;
  /**
   * The start build's job runs until it is canceled, as Coder's echo provisioner runs a start whose
   * archive answers no apply end (echoTemplateArchive({ holdStart: true }) on the real server).
   */
  startHeld?: boolean;
}

/** The fields of a workspace the double keeps; its latest_build is the newest of its builds. */
export interface WorkspaceFields {
  id: string;
  name: string;
  owner_id: string;
  organization_id: string;
  template_id: string;
  [field: string]: unknown;
}

export interface StoredWorkspace {
  workspace: WorkspaceFields;
  builds: Schemas['WorkspaceBuild'][];
  deleted: boolean;
  script: BuildScript;
  /** Reads since the latest build started (of the workspace or of that build). */
  reads: number;
  deletesFailed: number;
}

export interface WorkspaceWorld {
  organizations: Schemas['Organization'][];
  members: Schemas['OrganizationMember'][];
  templates: Schemas['Template'][];
  templateVersions: Schemas['TemplateVersion'][];
  /** The build script of each template version id; versions without one build at once with one ready agent. */
  buildScripts: Map<string, BuildScript>;
  workspaces: StoredWorkspace[];
  buildLogs: Map<string, Schemas['ProvisionerJobLog'][]>;
  /** Uploaded files by id: the bytes as sent and their SHA-256 (an upload of the same bytes answers the same id). */
  files: Map<string, { hash: string; data: Buffer }>;
  /** The versions created through the API whose import job moves one step per read (template-handlers.ts). */
  importing: Set<string>;
  /** The job error of each version whose import fails (template-handlers.ts). */
  importFailures: Map<string, string>;
  /** Job errors for the next versions created: each one's import fails with the first error left. */
  failNextImports: string[];
  /** While true, imports stay where they are however often they are read, so a test can act during the wait. */
  importsHeld: boolean;
  /** The provisioner each version created through the API was made for; a template made of it has that provisioner. */
  provisioners: Map<string, string>;
}

export const defaultBuildScript: BuildScript = { startReads: 1, agents: [{ name: 'main', readyAfterReads: 1 }], deleteReads: 1 };

/** The script of the aggregated API's tests, which look at a workspace only by name and list. */
export const instantBuildScript: BuildScript = { ...defaultBuildScript, instant: true };

/**
 * The organization every Coder deployment has from its first start: created as "first-organization" with
 * is_default and renamed "coder" (display name "Coder") by Coder's migrations (coder/coder v2.26.1
 * coderd/database/migrations/000198_ensure_default_org.up.sql and 000259_rename_first_organization.up.sql).
 * Without default_org_member_roles, which only v2.36.0 and newer answer (codersdk/organizations.go).
 */
function defaultOrganization(): Schemas['Organization'] {
  const at = now();
  return {
    id: randomUUID(),
    name: 'coder',
    display_name: 'Coder',
    description: 'Builtin default organization.',
    icon: '',
    is_default: true,
    created_at: at,
    updated_at: at,
  };
}

/** A world as a new deployment holds it: the default organization and nothing else. */
export function emptyWorkspaceWorld(): WorkspaceWorld {
  return {
    organizations: [defaultOrganization()],
    members: [],
    templates: [],
    templateVersions: [],
    buildScripts: new Map(),
    workspaces: [],
    buildLogs: new Map(),
    files: new Map(),
    importing: new Set(),
    importFailures: new Map(),
    failNextImports: [],
    importsHeld: false,
    provisioners: new Map(),
  };
}

const now = () => new Date().toISOString();

/**
 * Whether an agent counts as healthy in the workspace's health (coder/coder v2.26.1
 * coderd/database/db2sdk/db2sdk.go WorkspaceAgent): not when it is off and not connected, timed out,
 * disconnected, failed its startup script or is shutting down.
 */
function agentHealthy(agent: Schemas['WorkspaceAgent']): boolean {
  if (agent.status !== 'connected' && agent.lifecycle_state === 'off') return false;
  if (agent.status === 'timeout' || agent.status === 'disconnected') return false;
  return !['start_error', 'shutting_down', 'shutdown_timeout', 'shutdown_error'].includes(agent.lifecycle_state);
}

/**
 * A workspace as Coder answers it (coder/coder v2.26.1 coderd/workspaces.go convertWorkspace): its latest
 * build, the template's active version and whether the build is of another one, the agents' health, the
 * TTL (the template's when users may not set it); the template is read as it is now. Undefined once the
 * template is deleted: Coder then answers a read by id 403 and a read by name 404 (coderd/workspaces.go
 * workspace and workspaceByOwnerAndName).
 */
export function workspaceAnswer(world: WorkspaceWorld, stored: StoredWorkspace): Schemas['Workspace'] | undefined {
  const template = world.templates.find((t) => t.id === stored.workspace.template_id);
  if (!template) return undefined;
  const latest = stored.builds[0]!;
  const failing = (latest.resources ?? []).flatMap((r) => r.agents ?? []).filter((a) => !agentHealthy(a));
  return {
    ...stored.workspace,
    // A template that does not let users pick when workspaces stop shows its own TTL.
    ...(template.allow_user_autostop === false ? { ttl_ms: template.default_ttl_ms ?? 0 } : {}),
    template_active_version_id: template.active_version_id,
    outdated: latest.template_version_id !== template.active_version_id,
    latest_build: latest,
    deleting_at: null,
    dormant_at: null,
    health: { healthy: failing.length === 0, failing_agents: failing.map((a) => a.id) },
  } as Schemas['Workspace'];
}

/** Removes a template as Coder does: refused while a workspace that is not deleted was made from it. */
export function deleteTemplate(world: WorkspaceWorld, templateId: string): 'deleted' | 'not-found' | 'in-use' {
  const index = world.templates.findIndex((t) => t.id === templateId);
  if (index < 0) return 'not-found';
  if (world.workspaces.some((w) => !w.deleted && w.workspace.template_id === templateId)) return 'in-use';
  world.templates.splice(index, 1);
  return 'deleted';
}

const nilUUID = '00000000-0000-0000-0000-000000000000';
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organization of `ref`: by id, else by name ignoring case. */
export function organizationByIdOrName(world: WorkspaceWorld, ref: string): Schemas['Organization'] | undefined {
  if (uuidPattern.test(ref)) return world.organizations.find((o) => o.id.toLowerCase() === ref.toLowerCase());
  return world.organizations.find((o) => o.name.toLowerCase() === ref.toLowerCase());
}

/**
 * The organization of an {organization} path parameter, by Coder's rules (coder/coder v2.26.1
 * coderd/httpmw/organizationparam.go): exactly "default" (or the nil UUID) is the organization with
 * is_default, whatever its name; otherwise by id, else by name ignoring case.
 */
export function organizationOfParam(world: WorkspaceWorld, ref: string): Schemas['Organization'] | undefined {
  if (ref === 'default' || ref === nilUUID) return world.organizations.find((o) => o.is_default);
  return organizationByIdOrName(world, ref);
}

/** The organization named `name`, added (not the default one) when missing. */
export function seedOrganization(world: WorkspaceWorld, name: string): Schemas['Organization'] {
  const existing = world.organizations.find((o) => o.name === name);
  if (existing) return existing;
  const at = now();
  const organization: Schemas['Organization'] = {
    id: randomUUID(),
    name,
    icon: '',
    is_default: false,
    created_at: at,
    updated_at: at,
  };
  world.organizations.push(organization);
  return organization;
}

/** A template of `organization` with one imported version, its active one, whose builds follow `script`. */
export function seedTemplateWithVersion(
  world: WorkspaceWorld,
  organization: Schemas['Organization'],
  options: { template?: string; version?: string; script?: BuildScript } = {},
): { template: Schemas['Template']; version: Schemas['TemplateVersion'] } {
  const at = now();
  const templateId = randomUUID();
  const version: Schemas['TemplateVersion'] = {
    id: randomUUID(),
    template_id: templateId,
    organization_id: organization.id,
    name: options.version ?? 'v1',
    created_at: at,
    updated_at: at,
    archived: false,
    job: { id: randomUUID(), status: 'succeeded', created_at: at, completed_at: at },
  };
  const template: Schemas['Template'] = {
    ...newTemplateSettings,
    id: templateId,
    name: options.template ?? 'docker',
    organization_id: organization.id,
    organization_name: organization.name,
    active_version_id: version.id,
    provisioner: 'terraform',
    active_user_count: 0,
    created_at: at,
    updated_at: at,
  };
  world.templates.push(template);
  world.templateVersions.push(version);
  if (options.script) world.buildScripts.set(version.id, options.script);
  return { template, version };
}

/** The user named `username`, added (an active member of no organization) when missing. */
export function seedUser(users: Schemas['User'][], username: string): Schemas['User'] {
  const existing = users.find((u) => u.username === username);
  if (existing) return existing;
  const at = now();
  const user: Schemas['User'] = {
    id: randomUUID(),
    username,
    email: `${username}@coder.invalid`,
    created_at: at,
    updated_at: at,
    status: 'active',
    login_type: 'password',
    organization_ids: [],
    roles: [],
  };
  users.push(user);
  return user;
}

/** Makes `user` a plain member of `organization` unless it is one already. */
export function seedMembership(world: WorkspaceWorld, user: Schemas['User'], organization: Schemas['Organization']): void {
  if (world.members.some((m) => m.user_id === user.id && m.organization_id === organization.id)) return;
  world.members.push({ user_id: user.id, organization_id: organization.id, roles: [] });
  if (!user.organization_ids?.includes(organization.id)) user.organization_ids = [...(user.organization_ids ?? []), organization.id];
}

/**
 * A workspace of `owner` (made a member of the template's organization) made from the active version of `template` whose one build, a `transition`
 * (stop by default), has finished; `deadline` is that build's auto-stop time.
 */
export function seedWorkspace(
  world: WorkspaceWorld,
  options: {
    owner: Schemas['User'];
    template: Schemas['Template'];
    name: string;
    transition?: 'start' | 'stop';
    deadline?: string;
  },
): StoredWorkspace {
  const { owner, template } = options;
  const organization = world.organizations.find((o) => o.id === template.organization_id);
  if (organization) seedMembership(world, owner, organization);
  const stored: StoredWorkspace = {
    workspace: workspaceFields(template, owner, options.name),
    builds: [],
    deleted: false,
    script: world.buildScripts.get(template.active_version_id) ?? defaultBuildScript,
    reads: 0,
    deletesFailed: 0,
  };
  const build = newBuild(world, stored, options.transition ?? 'stop', owner, template.active_version_id);
  setJob(build, 'succeeded');
  if (options.deadline) build.deadline = options.deadline;
  stored.builds.unshift(build);
  world.workspaces.push(stored);
  return stored;
}

/** The stored fields of a new workspace named `name` of `owner`, made from `template`. */
export function workspaceFields(template: Schemas['Template'], owner: Schemas['User'], name: string): WorkspaceFields {
  const at = now();
  return {
    id: randomUUID(),
    created_at: at,
    updated_at: at,
    owner_id: owner.id,
    owner_name: owner.username,
    organization_id: template.organization_id,
    organization_name: template.organization_name,
    template_id: template.id,
    template_name: template.name,
    name,
    automatic_updates: 'never',
    last_used_at: at,
  };
}

/** An organization, a tester user who is a plain member of it, a template and its active version. */
export interface TemplateTestSeed {
  organization: Schemas['Organization'];
  tester: Schemas['User'];
  template: Schemas['Template'];
  version: Schemas['TemplateVersion'];
}

export function seedTemplate(
  world: WorkspaceWorld,
  users: Schemas['User'][],
  options: {
    organization?: string;
    template?: string;
    version?: string;
    script?: BuildScript;
    tester?: Partial<Schemas['User']>;
    /** A tester seeded before: reused, and made a member of the organization unless `member` is false. */
    existingTester?: Schemas['User'];
    member?: boolean;
  } = {},
): TemplateTestSeed {
  const at = now();
  const organization = seedOrganization(world, options.organization ?? 'coder');
  const tester: Schemas['User'] = options.existingTester ?? {
    id: randomUUID(),
    username: `tester-${users.length}`,
    email: '',
    created_at: at,
    updated_at: at,
    status: 'active',
    login_type: 'none',
    is_service_account: true,
    organization_ids: [],
    roles: [],
    ...options.tester,
  };
  if (!options.existingTester) users.push(tester);
  if (options.member !== false) seedMembership(world, tester, organization);
  const { template, version } = seedTemplateWithVersion(world, organization, options);
  return { organization, tester, template, version };
}

/**
 * An organization (added when missing) with a template named `template` whose builds are instant, and
 * workspaces of `owner` (added when missing) made from it and running.
 */
export function seedRunningWorkspaces(
  world: WorkspaceWorld,
  users: Schemas['User'][],
  seed: { organization: string; template: string; owner: string; workspaces: string[] },
): { organization: Schemas['Organization']; template: Schemas['Template']; version: Schemas['TemplateVersion'] } {
  const organization = seedOrganization(world, seed.organization);
  const { template, version } = seedTemplateWithVersion(world, organization, { template: seed.template, script: instantBuildScript });
  const owner = seedUser(users, seed.owner);
  for (const name of seed.workspaces) seedWorkspace(world, { owner, template, name, transition: 'start' });
  return { organization, template, version };
}
