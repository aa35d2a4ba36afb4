// coderworkspaces/start and /stop: a transition decided from the latest build, queued at
// most once.
import type { Schemas } from '../../../coder/api-types.ts';
import type { Transition, WorkspaceAccess } from './workspace-access.ts';
import { badRequest, conflict, groupVersion } from '../../status.ts';
import type { Subresource, SubresourceAnswer, SubresourceRequest } from '../storage.ts';

export type TransitionOutcome = 'Queued' | 'InProgress' | 'Unchanged' | 'WouldQueue';

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

export function workspaceTransition(access: WorkspaceAccess, want: Transition): Subresource {
  return {
    verb: 'create',
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
