// The part of the in-memory Coder that template tests use: organizations and their members, templates and
// versions, workspaces with their builds, agents and build logs. Builds move on as the workspace is read
// (one step per read, never by the clock), following the script of the template version: a build that
// fails with log lines, an agent that never connects, a slow or failing delete.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';

type Schemas = components['schemas'];
type JobStatus = Schemas['ProvisionerJob']['status'];

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
  /** Reads since the latest build started. */
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
}

export const defaultBuildScript: BuildScript = { startReads: 1, agents: [{ name: 'main', readyAfterReads: 1 }], deleteReads: 1 };

export function emptyWorkspaceWorld(): WorkspaceWorld {
  return {
    organizations: [],
    members: [],
    templates: [],
    templateVersions: [],
    buildScripts: new Map(),
    workspaces: [],
    buildLogs: new Map(),
  };
}

const now = () => new Date().toISOString();

function buildStatus(transition: Schemas['WorkspaceBuild']['transition'], job: JobStatus): Schemas['WorkspaceBuild']['status'] {
  if (job === 'pending') return 'pending';
  if (job === 'canceling') return 'canceling';
  if (job === 'canceled') return 'canceled';
  if (job === 'failed' || job === 'unknown') return 'failed';
  if (job === 'running') return transition === 'start' ? 'starting' : transition === 'stop' ? 'stopping' : 'deleting';
  return transition === 'start' ? 'running' : transition === 'stop' ? 'stopped' : 'deleted';
}

export function newBuild(
  stored: Pick<StoredWorkspace, 'workspace' | 'builds'>,
  transition: Schemas['WorkspaceBuild']['transition'],
  initiatorId: string,
  templateVersionId: string,
): Schemas['WorkspaceBuild'] {
  const at = now();
  return {
    id: randomUUID(),
    created_at: at,
    updated_at: at,
    workspace_id: stored.workspace.id,
    workspace_name: stored.workspace.name,
    workspace_owner_id: stored.workspace.owner_id,
    template_version_id: templateVersionId,
    build_number: (stored.builds[0]?.build_number ?? 0) + 1,
    transition,
    initiator_id: initiatorId,
    job: { id: randomUUID(), created_at: at, status: 'pending' },
    resources: [],
    status: 'pending',
  };
}

function setJob(build: Schemas['WorkspaceBuild'], status: JobStatus, extra: Partial<Schemas['ProvisionerJob']> = {}): void {
  build.job = {
    ...build.job,
    status,
    ...extra,
    ...(status === 'succeeded' || status === 'failed' || status === 'canceled' ? { completed_at: now() } : {}),
  };
  build.status = buildStatus(build.transition, status);
  build.updated_at = now();
}

function logLine(id: number, output: string): Schemas['ProvisionerJobLog'] {
  return { id, created_at: now(), log_source: 'provisioner', log_level: 'error', stage: 'Starting workspace', output };
}

/** A stable id for the i-th agent of a workspace: the workspace id with its last digits replaced. */
function agentId(workspaceId: string, index: number): string {
  return `${workspaceId.slice(0, 24)}${(0xa0000000 + index).toString(16)}0000`.slice(0, 36);
}

function agentsOf(stored: StoredWorkspace, reads: number): Schemas['WorkspaceResource'][] {
  const script = stored.script;
  const agents: Schemas['WorkspaceAgent'][] = [];
  for (const [index, a] of script.agents.entries()) {
    const ready = a.readyAfterReads !== false && reads >= a.readyAfterReads;
    const ended = ready || (a.readyAfterReads === false && (a.endsIn || a.connectionEndsIn) && reads >= 1);
    agents.push({
      id: agentId(stored.workspace.id, index),
      parent_id: a.subAgent ? agentId(stored.workspace.id, 0) : null,
      name: a.name,
      status: ended ? (a.connectionEndsIn ?? 'connected') : 'connecting',
      lifecycle_state: ended ? (a.endsIn ?? 'ready') : 'created',
    });
  }
  return [{ id: agentId(stored.workspace.id, 99), type: 'docker_container', name: 'workspace', agents }];
}

/** One read of the workspace: its latest build moves one step on, as its script says. */
export function advance(world: WorkspaceWorld, stored: StoredWorkspace): void {
  const build = stored.builds[0];
  if (!build) return;
  stored.reads++;
  const job = build.job.status;
  if (job === 'canceling') return setJob(build, 'canceled');
  if (build.transition === 'start') {
    if ((job === 'pending' || job === 'running') && stored.reads >= stored.script.startReads) {
      const failure = stored.script.startFails;
      if (failure) {
        world.buildLogs.set(
          build.id,
          failure.logLines.map((line, i) => logLine(i + 1, line)),
        );
        return setJob(build, 'failed', { error: 'terraform apply failed', error_code: failure.errorCode });
      }
      stored.reads = 0;
      setJob(build, 'succeeded');
      build.resources = agentsOf(stored, 0);
      return;
    }
    if (job === 'pending') return setJob(build, 'running');
    if (job === 'succeeded') build.resources = agentsOf(stored, stored.reads);
    return;
  }
  if (build.transition === 'delete' && (job === 'pending' || job === 'running')) {
    if (stored.reads < stored.script.deleteReads) return setJob(build, 'running');
    if (stored.deletesFailed < (stored.script.failingDeletes ?? 0)) {
      stored.deletesFailed++;
      return setJob(build, 'failed', { error: 'terraform destroy failed', error_code: 'DESTROY_FAILED' });
    }
    setJob(build, 'succeeded');
    stored.deleted = true;
  }
}

export function workspaceAnswer(stored: StoredWorkspace): Schemas['Workspace'] {
  return { ...stored.workspace, latest_build: stored.builds[0]! } as Schemas['Workspace'];
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
  const orgName = options.organization ?? 'coder';
  let organization = world.organizations.find((o) => o.name === orgName);
  if (!organization) {
    organization = {
      id: randomUUID(),
      name: orgName,
      is_default: world.organizations.length === 0,
      created_at: at,
      updated_at: at,
      default_org_member_roles: [],
    };
    world.organizations.push(organization);
  }
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
  const isMember = world.members.some((m) => m.user_id === tester.id && m.organization_id === organization.id);
  if (options.member !== false && !isMember) {
    world.members.push({ user_id: tester.id, organization_id: organization.id, roles: [] });
    if (!tester.organization_ids?.includes(organization.id))
      tester.organization_ids = [...(tester.organization_ids ?? []), organization.id];
  }
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
    id: templateId,
    name: options.template ?? 'docker',
    organization_id: organization.id,
    organization_name: organization.name,
    active_version_id: version.id,
    deprecated: false,
    created_at: at,
    updated_at: at,
  };
  world.templates.push(template);
  world.templateVersions.push(version);
  if (options.script) world.buildScripts.set(version.id, options.script);
  return { organization, tester, template, version };
}
