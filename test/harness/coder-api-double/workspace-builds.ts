// Workspace builds and their provisioner jobs in the double's one world, as Coder answers them
// (coder/coder v2.26.1 coderd/workspacebuilds.go convertWorkspaceBuild, coderd/provisionerjobs.go
// convertProvisionerJob, coderd/wsbuilder/wsbuilder.go): a build's job builds the template version's file
// with its provisioner tags, moves one step per read of the workspace or of the build (never by the clock)
// as the version's build script says, and ends after a cancel as Coder's provisioners end it.
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import type { StoredWorkspace, WorkspaceWorld } from './workspace-world.ts';

type Schemas = components['schemas'];
type JobStatus = Schemas['ProvisionerJob']['status'];
type Build = Schemas['WorkspaceBuild'];

/** The built-in provisioner daemon of the double that takes every build job. */
const buildDaemonId = '3c9e7a51-2f0d-4b8e-a6c4-8d1f5e0b7a93';

const now = () => new Date().toISOString();

/** The build status of a job status and transition (coder/coder v2.26.1 codersdk/workspacebuilds.go ConvertWorkspaceStatus). */
function buildStatus(transition: Build['transition'], job: JobStatus): Build['status'] {
  if (job === 'pending') return 'pending';
  if (job === 'canceling') return 'canceling';
  if (job === 'canceled') return 'canceled';
  if (job === 'failed' || job === 'unknown') return 'failed';
  if (job === 'running') return transition === 'start' ? 'starting' : transition === 'stop' ? 'stopping' : 'deleting';
  return transition === 'start' ? 'running' : transition === 'stop' ? 'stopped' : 'deleted';
}

/**
 * The tags of a build job: the version's import tags, scoped to the organization unless they say user
 * (coder/coder v2.26.1 provisionersdk/provisionertags.go MutateTags, as wsbuilder.go applies it).
 */
function buildTags(ownerId: string, versionTags: Record<string, string> = {}): Record<string, string> {
  const tags = { ...versionTags };
  if (tags.scope === 'user') return { ...tags, owner: ownerId };
  return { ...tags, scope: 'organization', owner: '' };
}

/**
 * A new build of `stored` (not yet added to its builds), its job pending: the fields Coder answers for a
 * build read (reason initiator, no deadline until a start ends, no resources until its job ends).
 */
export function newBuild(
  world: WorkspaceWorld,
  stored: Pick<StoredWorkspace, 'workspace' | 'builds'>,
  transition: Build['transition'],
  initiator: { id: string; username: string },
  templateVersionId: string,
): Build {
  const at = now();
  const version = world.templateVersions.find((v) => v.id === templateVersionId);
  const fileId = version?.job.file_id;
  return {
    id: randomUUID(),
    created_at: at,
    updated_at: at,
    workspace_id: stored.workspace.id,
    workspace_name: stored.workspace.name,
    workspace_owner_id: stored.workspace.owner_id,
    template_version_id: templateVersionId,
    template_version_name: version?.name ?? '',
    build_number: (stored.builds[0]?.build_number ?? 0) + 1,
    transition,
    initiator_id: initiator.id,
    initiator_name: initiator.username,
    job: {
      id: randomUUID(),
      created_at: at,
      status: 'pending',
      ...(fileId ? { file_id: fileId } : {}),
      tags: buildTags(stored.workspace.owner_id, version?.job.tags),
      queue_position: 0,
      queue_size: 0,
      organization_id: stored.workspace.organization_id,
    },
    reason: 'initiator',
    resources: [],
    deadline: null,
    max_deadline: null,
    status: 'pending',
  };
}

/**
 * A build as the POST that queued it answers: Coder converts it with an empty template version there, so
 * template_version_name is "" (coder/coder v2.26.1 coderd/workspacebuilds.go postWorkspaceBuilds,
 * coderd/workspaces.go createWorkspace).
 */
export function queuedAnswer(build: Build): Build {
  return { ...build, template_version_name: '' };
}

/** Moves the job on: a daemon takes it when it first leaves pending for anything but a cancel; an end sets completed_at. */
export function setJob(build: Build, status: JobStatus, extra: Partial<Schemas['ProvisionerJob']> = {}): void {
  const at = now();
  const taken = build.job.started_at !== undefined || (status !== 'pending' && status !== 'canceled');
  build.job = {
    ...build.job,
    ...(taken && build.job.started_at === undefined ? { started_at: at, worker_id: buildDaemonId } : {}),
    ...extra,
    status,
    ...(status === 'succeeded' || status === 'failed' || status === 'canceled' ? { completed_at: at } : {}),
  };
  build.status = buildStatus(build.transition, status);
  build.updated_at = at;
}

function logLine(id: number, output: string): Schemas['ProvisionerJobLog'] {
  return { id, created_at: now(), log_source: 'provisioner', log_level: 'error', stage: 'Starting workspace', output };
}

/** A stable id for the i-th agent of a workspace: the workspace id with its last digits replaced. */
function agentId(workspaceId: string, index: number): string {
  return `${workspaceId.slice(0, 24)}${(0xa0000000 + index).toString(16)}0000`.slice(0, 36);
}

function agentsOf(stored: StoredWorkspace, build: Build, reads: number): Schemas['WorkspaceResource'][] {
  const agents: Schemas['WorkspaceAgent'][] = [];
  for (const [index, a] of stored.script.agents.entries()) {
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
  const resource = { id: agentId(stored.workspace.id, 99), job_id: build.job.id, workspace_transition: build.transition };
  return [{ ...resource, type: 'docker_container', name: 'workspace', hide: false, agents }];
}

/** One read of the workspace or of its latest build: that build moves one step on, as its script says. */
export function advance(world: WorkspaceWorld, stored: StoredWorkspace): void {
  const build = stored.builds[0];
  if (!build) return;
  stored.reads++;
  const job = build.job.status;
  // A running job told to cancel: the provisioner stops and reports that as the job's error, so the job
  // ends failed with canceled_at set (checked on v2.26.1 with its echo provisioner: error "canceled").
  if (job === 'canceling') return setJob(build, 'failed', { error: 'canceled' });
  const script = stored.script;
  if (build.transition === 'start') {
    if (job === 'running' && script.startHeld) return;
    if ((job === 'pending' || job === 'running') && !script.startHeld && stored.reads >= script.startReads) {
      const failure = script.startFails;
      if (failure) {
        world.buildLogs.set(
          build.id,
          failure.logLines.map((line, i) => logLine(i + 1, line)),
        );
        return setJob(build, 'failed', { error: 'terraform apply failed', error_code: failure.errorCode });
      }
      stored.reads = 0;
      setJob(build, 'succeeded');
      build.resources = agentsOf(stored, build, 0);
      return;
    }
    if (job === 'pending') return setJob(build, 'running');
    if (job === 'succeeded') build.resources = agentsOf(stored, build, stored.reads);
    return;
  }
  if (job !== 'pending' && job !== 'running') return;
  if (build.transition === 'stop') return setJob(build, 'succeeded');
  if (stored.reads < script.deleteReads) return setJob(build, 'running');
  if (stored.deletesFailed < (script.failingDeletes ?? 0)) {
    stored.deletesFailed++;
    return setJob(build, 'failed', { error: 'terraform destroy failed', error_code: 'DESTROY_FAILED' });
  }
  setJob(build, 'succeeded');
  stored.deleted = true;
}

/** A build just queued: ended at once when the workspace's script is instant. */
export function queued(stored: StoredWorkspace, build: Build): void {
  if (!stored.script.instant) return;
  setJob(build, 'succeeded');
  if (build.transition === 'delete') stored.deleted = true;
}

const endedJobs = new Set<JobStatus>(['succeeded', 'failed', 'canceled']);

/**
 * A cancel of `build` as Coder decides it (coder/coder v2.26.1 coderd/workspacebuilds.go
 * patchCancelWorkspaceBuild): refused once the job completed or was canceled, then when expect_status names
 * another status (412); a job no daemon took ends canceled at once, a running one is canceling.
 */
export function cancelBuild(build: Build, expectStatus?: string): { status: number; message: string } {
  if (build.job.completed_at || endedJobs.has(build.job.status)) return { status: 400, message: 'Job has already completed!' };
  if (build.job.canceled_at) return { status: 400, message: 'Job has already been marked as canceled!' };
  if (expectStatus !== undefined && build.job.status !== expectStatus) return { status: 412, message: 'Job is not in the expected state.' };
  const canceledAt = now();
  if (build.job.worker_id) {
    build.job = { ...build.job, canceled_at: canceledAt, status: 'canceling' };
    build.status = 'canceling';
  } else setJob(build, 'canceled', { canceled_at: canceledAt });
  return { status: 200, message: 'Job has been marked as canceled...' };
}

/** Whether a job still holds the workspace: Coder queues no other build meanwhile (codersdk ProvisionerJobStatus.Active). */
export const jobActive = (status: JobStatus) => status === 'pending' || status === 'running' || status === 'canceling';
