// coderworkspaces/start, /stop and /log (reference §2.13): a transition decided from the latest build,
// queued at most once, and the latest build's log as text.
import type { Schemas } from '../coder/api-types.ts';
import type { CoderTarget } from './backend.ts';
import { kubeTime } from './objects.ts';
import { ApiStatusError, badRequest, conflict, groupVersion } from './status.ts';
import type { Subresource, SubresourceAnswer, SubresourceRequest } from './storage.ts';

type Transition = 'start' | 'stop';
export type TransitionOutcome = 'Queued' | 'InProgress' | 'Unchanged' | 'WouldQueue';

/** What the workspace storage lends its subresources. */
export interface WorkspaceAccess {
  lookup(namespace: string, name: string): Promise<{ target: CoderTarget; ws: Schemas['Workspace'] }>;
  build(target: CoderTarget, name: string, id: string, transition: Transition): Promise<Schemas['WorkspaceBuild']>;
  call<T>(target: CoderTarget, name: string, fn: () => Promise<T>): Promise<T>;
  /** A build was queued: lists are stale and watchers hear of the workspace as it is now. */
  changed(namespace: string, ws: Schemas['Workspace']): void;
}

const active = new Set(['pending', 'running']);
const ended = new Set(['failed', 'canceled']);

/** Whether asking for `want` queues a build, given the latest build; a 409 when another build is in the way. */
export function decideTransition(name: string, want: Transition, latest: Schemas['WorkspaceBuild']): 'queue' | 'InProgress' | 'Unchanged' {
  const job = latest.job.status;
  const busy = `cannot ${want} workspace "${name}": its ${latest.transition} build is ${job}; try again when it ends`;
  if (latest.transition === 'delete' && !ended.has(job)) throw conflict(`cannot ${want} workspace "${name}": it is being deleted`);
  if (job === 'canceling') throw conflict(busy);
  if (active.has(job)) {
    if (latest.transition === want) return 'InProgress';
    throw conflict(busy);
  }
  if (ended.has(job) || latest.transition !== want) return 'queue';
  return 'Unchanged';
}

function transitionObject(request: SubresourceRequest, want: Transition, outcome: TransitionOutcome, build: Schemas['WorkspaceBuild']) {
  return {
    apiVersion: groupVersion,
    kind: 'CoderWorkspaceTransition',
    metadata: { name: request.name, namespace: request.namespace },
    status: {
      transition: want,
      outcome,
      dryRun: request.dryRun,
      buildID: build.id,
      buildNumber: build.build_number,
      jobStatus: build.job.status,
    },
  };
}

function transition(access: WorkspaceAccess, want: Transition): Subresource {
  return {
    verb: 'create',
    kind: 'CoderWorkspaceTransition',
    async serve(request): Promise<SubresourceAnswer> {
      const kind = request.body?.kind;
      if (kind && kind !== 'CoderWorkspaceTransition') throw badRequest(`the body is a ${kind}, not a CoderWorkspaceTransition`);
      const { target, ws } = await access.lookup(request.namespace, request.name);
      const decision = decideTransition(request.name, want, ws.latest_build);
      if (decision !== 'queue') return { code: 201, json: transitionObject(request, want, decision, ws.latest_build) };
      if (request.dryRun) return { code: 201, json: transitionObject(request, want, 'WouldQueue', ws.latest_build) };
      const queued = await access.build(target, request.name, ws.id, want);
      // One confirming read (never a second build request): its job status if it still shows this build.
      const reread = await access.lookup(request.namespace, request.name).catch(() => undefined);
      const now = reread?.ws.latest_build.id === queued.id ? reread.ws.latest_build : queued;
      access.changed(request.namespace, { ...(reread?.ws ?? ws), latest_build: now });
      return { code: 201, json: transitionObject(request, want, 'Queued', now) };
    },
  };
}

/** Line format of the Go server: `<RFC3339> [<level>] [<stage, or provisioner without one>] <output>`. */
export function logLine(log: Schemas['ProvisionerJobLog']): string {
  return `${kubeTime(log.created_at) ?? log.created_at} [${log.log_level}] [${log.stage || 'provisioner'}] ${log.output}`;
}

const maxLogBytes = 4 * 1024 * 1024;

function log(access: WorkspaceAccess): Subresource {
  return {
    verb: 'get',
    kind: 'CoderWorkspaceLog',
    async serve(request): Promise<SubresourceAnswer> {
      const accept = request.accept ?? '';
      if (accept && !/application\/json|\*\/\*/.test(accept))
        throw new ApiStatusError(
          406,
          'NotAcceptable',
          `the log is served as text/plain to clients that accept application/json or */*; Accept was "${accept}"`,
        );
      if (request.query.has('follow') && request.query.get('follow') !== 'false')
        throw badRequest('follow is not supported by coderworkspaces/log yet; read the log again to see new lines');
      const limitText = request.query.get('limitBytes');
      const limit = limitText === null ? maxLogBytes : Number(limitText);
      if (!Number.isInteger(limit) || limit < 1)
        throw new ApiStatusError(422, 'Invalid', `limitBytes: must be a whole number of at least 1, got "${limitText}"`);
      const { target, ws } = await access.lookup(request.namespace, request.name);
      const logs = await access.call(target, request.name, () =>
        target.client.request('GET', '/api/v2/workspacebuilds/{workspaceBuild}/logs', { params: { workspaceBuild: ws.latest_build.id } }),
      );
      const text = logs.map((l) => `${logLine(l)}\n`).join('');
      const bytes = Buffer.from(text);
      const cut = Math.min(limit, maxLogBytes);
      return { code: 200, text: bytes.length > cut ? bytes.subarray(0, cut).toString('utf8') : text };
    },
  };
}

export function workspaceSubresources(access: WorkspaceAccess): Record<string, Subresource> {
  return { log: log(access), start: transition(access, 'start'), stop: transition(access, 'stop') };
}
