// A template test's readiness step: the start build and the top-level agents of the test's
// workspace, until every agent is connected and ready (the pass), then the delete after the pass.
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderClient } from '../../coder/client.ts';
import { CoderApiError } from '../../coder/errors.ts';
import { nowTime } from '../../runtime/conditions.ts';
import { scrubSecrets } from '../../runtime/redaction.ts';
import { agentConnectionTimeoutMessage, agentEndedMessage, agentWaitMessage } from './agent-state.ts';
import { once } from './coder-access.ts';
import { deleteWorkspaceStep } from './delete-workspace.ts';
import { expectSame, fail, R, wait, WD, type Step } from './step.ts';

const logLinesKept = 10;
const logLineChars = 200;
const jobErrorChars = 120;

type Agent = Schemas['WorkspaceAgent'];

function agentFailure(agent: Agent): Step | undefined {
  switch (agent.lifecycle_state) {
    case 'start_error':
      return fail(R.AgentStartError, agentEndedMessage(agent, 'failed its startup script'));
    case 'start_timeout':
      return fail(R.AgentStartTimeout, agentEndedMessage(agent, 'did not finish its startup in time'));
    case 'shutting_down':
    case 'shutdown_timeout':
    case 'shutdown_error':
    case 'off':
      return fail(R.AgentStopped, agentEndedMessage(agent, 'is stopped'));
  }
  if (agent.status === 'timeout') return fail(R.AgentConnectionTimeout, agentConnectionTimeoutMessage(agent));
  return undefined;
}

/** The last lines of the failed build's logs, one per line, redacted and bounded; or why they could not be read. */
async function lastLogLines(client: CoderClient, buildId: string, signal: AbortSignal): Promise<string[]> {
  try {
    const { logs } = await client.readBuildLogs(buildId, { maxLines: logLinesKept, signal });
    return logs.map((l) => scrubSecrets(`${l.stage}: ${l.output}`.replace(/\s+/g, ' ').trim()).slice(0, logLineChars));
  } catch (err) {
    if (signal.aborted) throw err;
    return [`(the build logs could not be read: ${(err as Error).message})`];
  }
}

/** Coder's error of the failed job, on one line, redacted and bounded (it can quote the template's output). */
function jobError(build: Schemas['WorkspaceBuild']): string {
  const text = scrubSecrets((build.job.error ?? '').replace(/\s+/g, ' ').trim());
  return text.length > jobErrorChars ? `${text.slice(0, jobErrorChars)}…` : text;
}

async function buildFailed(client: CoderClient, build: Schemas['WorkspaceBuild'], signal: AbortSignal): Promise<Step> {
  const code = build.job.error_code ? `error code ${build.job.error_code}` : 'no error code';
  const lines = await lastLogLines(client, build.id, signal);
  const error = jobError(build);
  const summary = `The start build failed${error ? `: ${error}` : ''} (${code}).`;
  const tail = lines.length ? ` Last log lines: ${lines.join(' | ')}` : '';
  return fail(R.BuildFailed, `${summary}${tail}`, {
    eventNote: `${summary}${lines.length ? `\nLast log lines:\n${lines.join('\n')}` : ''}`,
  });
}

export async function readinessStep(client: CoderClient, test: CoderTemplateTest, now: Date, signal: AbortSignal): Promise<Step> {
  const s = test.status!;
  if (s.agentsReadyTime) return deleteAfterPass(client, test, now, signal);
  let ws;
  try {
    ws = await client.request('GET', '/api/v2/workspaces/{workspace}', { params: { workspace: s.workspaceID! }, ...once(signal) });
  } catch (err) {
    if (err instanceof CoderApiError && err.status === 410) {
      return fail(R.WorkspaceDeletedExternally, `Workspace ${s.workspaceName} was deleted by someone else.`, {
        workspaceDeleted: { status: 'True', reason: WD.DeletedExternally, message: 'Someone else deleted the workspace.' },
      });
    }
    throw err;
  }
  expectSame('workspace', s.workspaceID, ws.id);
  expectSame('workspace of the build', s.workspaceID, ws.latest_build.workspace_id);
  const build = ws.latest_build;
  if (build.id !== s.startBuildID) {
    return fail(
      R.WorkspaceChangedExternally,
      `The latest build of workspace ${s.workspaceName} is not the start build the controller requested.`,
    );
  }
  const job = build.job.status;
  // A build canceled while it ran ends failed with canceled_at set: its provisioner reports the stop as the
  // job's error (Coder v2.26.1 with its echo provisioner: error "canceled"). That is a cancel, not a failure.
  const canceled = job === 'canceling' || job === 'canceled' || (job === 'failed' && build.job.canceled_at !== undefined);
  if (canceled) return fail(R.BuildCanceled, `The start build of workspace ${s.workspaceName} was canceled (${job}).`);
  if (job === 'failed') return buildFailed(client, build, signal);
  if (job !== 'succeeded') return wait(R.WaitingForBuild, `The start build of workspace ${s.workspaceName} is ${job}.`);

  const agents = (build.resources ?? []).flatMap((r) => r.agents ?? []).filter((a) => !a.parent_id);
  if (!agents.length) return fail(R.NoAgents, `Workspace ${s.workspaceName} has no top-level agent.`);
  for (const agent of agents) {
    const failure = agentFailure(agent);
    if (failure) return failure;
  }
  const waiting = agents.find((a) => a.status !== 'connected' || a.lifecycle_state !== 'ready');
  if (waiting) return wait(R.WaitingForAgents, agentWaitMessage(waiting));
  return wait(R.AgentsReady, `Every agent of workspace ${s.workspaceName} is ready; the controller deletes the workspace next.`, {
    status: { agentsReadyTime: nowTime(now) },
  });
}

async function deleteAfterPass(client: CoderClient, test: CoderTemplateTest, now: Date, signal: AbortSignal): Promise<Step> {
  const outcome = await deleteWorkspaceStep(client, test, now, signal);
  const name = test.status!.workspaceName;
  if (outcome.state === 'deleted') {
    return {
      kind: 'succeed',
      message: `Every agent of workspace ${name} was ready, and the workspace is deleted.`,
      status: outcome.status,
    };
  }
  if (outcome.state === 'retrying' && (outcome.status?.deleteAttempts ?? test.status!.deleteAttempts ?? 0) > 0) {
    return fail(R.DeleteBuildFailed, outcome.message, {
      status: outcome.status,
      workspaceDeleted: { status: 'False', reason: WD.DeleteRetrying, message: outcome.message },
    });
  }
  return wait(R.DeletingWorkspace, outcome.message, { status: outcome.status });
}
