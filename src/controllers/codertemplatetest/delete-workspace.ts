// A template test's delete step: bring the test's workspace to a succeeded delete build.
// Used after a pass and by cleanup. A running start/stop build is canceled first, a failed delete build of
// this test is counted and retried after a backoff (1 minute doubling, at most 30), never an orphan delete.
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { CoderClient } from '../../coder/client.ts';
import { CoderApiError } from '../../coder/errors.ts';
import { once } from './coder-access.ts';
import { deleteRetryDelayMs } from './intervals.ts';
import { CoderAnswerMismatch, expectSame, type TestStatus } from './step.ts';

export type DeleteOutcome =
  | { state: 'deleted'; status?: Partial<TestStatus> }
  | { state: 'deleting'; message: string; status?: Partial<TestStatus> }
  | { state: 'retrying'; message: string; retryInMs: number; status?: Partial<TestStatus> };

const activeJob = new Set(['pending', 'running', 'canceling']);

function endedAt(build: { created_at?: string; updated_at?: string; job: { completed_at?: string } }, now: Date): number {
  return Date.parse(build.job.completed_at ?? build.updated_at ?? build.created_at ?? '') || now.getTime();
}

/**
 * Whether a workspace Coder refuses to show (403) is one deleted before its template was: Coder answers a
 * workspace whose template is deleted 403 even to an owner (coder/coder v2.26.1 coderd/workspaces.go
 * workspace finds no template), while its builds are still served; a template is deleted only once its
 * workspaces are, so a latest build that is a succeeded delete settles it.
 */
async function deletedWithItsTemplate(client: CoderClient, id: string, signal: AbortSignal): Promise<boolean> {
  const [latest] = await client.request('GET', '/api/v2/workspaces/{workspace}/builds', {
    params: { workspace: id },
    query: { limit: 1 },
    ...once(signal),
  });
  if (latest) expectSame('workspace of the build', id, latest.workspace_id);
  return latest?.transition === 'delete' && latest.job.status === 'succeeded';
}

export async function deleteWorkspaceStep(
  client: CoderClient,
  test: CoderTemplateTest,
  now: Date,
  signal: AbortSignal,
): Promise<DeleteOutcome> {
  const s = test.status!;
  const id = s.workspaceID!;
  let ws;
  try {
    ws = await client.request('GET', '/api/v2/workspaces/{workspace}', {
      params: { workspace: id },
      query: { include_deleted: true },
      ...once(signal),
    });
  } catch (err) {
    if (err instanceof CoderApiError && err.status === 403 && (await deletedWithItsTemplate(client, id, signal))) {
      return { state: 'deleted', status: { deleteBuildID: undefined } };
    }
    throw err;
  }
  expectSame('workspace', id, ws.id);
  expectSame('workspace of the build', id, ws.latest_build.workspace_id);
  const build = ws.latest_build;
  const job = build.job.status;
  let attempts = s.deleteAttempts ?? 0;

  if (build.transition === 'delete') {
    if (job === 'succeeded') return { state: 'deleted', status: { deleteBuildID: undefined } };
    if (activeJob.has(job) || (job !== 'failed' && job !== 'canceled')) {
      return {
        state: 'deleting',
        message: `The delete build of workspace ${s.workspaceName} is ${job}.`,
        status: { deleteBuildID: build.id },
      };
    }
    if (build.id === s.deleteBuildID) {
      attempts++;
      const retryInMs = Math.max(endedAt(build, now) + deleteRetryDelayMs(attempts) - now.getTime(), 1_000);
      return {
        state: 'retrying',
        message: `The delete build of workspace ${s.workspaceName} ended ${job} (${attempts} failed); another one starts in ${Math.ceil(retryInMs / 1000)}s.`,
        retryInMs,
        status: { deleteAttempts: attempts, deleteBuildID: undefined },
      };
    }
    const retryInMs = endedAt(build, now) + deleteRetryDelayMs(Math.max(attempts, 1)) - now.getTime();
    if (retryInMs > 0) {
      return {
        state: 'retrying',
        message: `A delete build of workspace ${s.workspaceName} ended ${job}; another one starts in ${Math.ceil(retryInMs / 1000)}s.`,
        retryInMs,
      };
    }
  } else if (job === 'pending' || job === 'running') {
    try {
      await client.request('PATCH', '/api/v2/workspacebuilds/{workspaceBuild}/cancel', {
        params: { workspaceBuild: build.id },
        query: { expect_status: job },
        ...once(signal),
      });
    } catch (err) {
      // 412 or 400: the build moved on meanwhile; the next look decides again.
      if (!(err instanceof CoderApiError && (err.status === 412 || err.status === 400))) throw err;
    }
    return {
      state: 'deleting',
      message: `The ${build.transition} build of workspace ${s.workspaceName} is being canceled before the delete.`,
    };
  } else if (job === 'canceling') {
    return {
      state: 'deleting',
      message: `The ${build.transition} build of workspace ${s.workspaceName} is being canceled before the delete.`,
    };
  }

  let started;
  try {
    started = await client.request('POST', '/api/v2/workspaces/{workspace}/builds', {
      params: { workspace: id },
      body: { transition: 'delete' },
      ...once(signal),
    });
  } catch (err) {
    if (err instanceof CoderApiError && err.status === 409) {
      return { state: 'deleting', message: `Another build of workspace ${s.workspaceName} started; the delete waits for it.` };
    }
    throw err;
  }
  expectSame('workspace of the delete build', id, started.workspace_id);
  if (started.transition !== 'delete') throw new CoderAnswerMismatch(`Coder answered a ${started.transition} build, not a delete build.`);
  return {
    state: 'deleting',
    message: `The delete build of workspace ${s.workspaceName} started.`,
    status: { deleteBuildID: started.id, deleteAttempts: attempts },
  };
}
