// A template test's create step: the workspace create request, sent only after the create
// marker (status.createAttemptTime) is stored. Its answer decides whether the marker may go (the request
// provably had no effect), whether the test fails, or whether only reading Coder can tell (ConfirmingCreate).
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isRouteNotServed } from '../../coder/error-predicates.ts';
import { CoderApiError, CoderNetworkError } from '../../coder/errors.ts';
import { once } from './coder-access.ts';
import { endpointNotFoundMessage } from './coder-failure.ts';
import { CoderAnswerMismatch, expectSame, fail, R, wait, WD, type Step } from './step.ts';

const notCreated = { status: 'True', reason: WD.NotCreated, message: 'The controller never sent a workspace create request.' } as const;

/** A failure that proves no workspace was made: refused before any work (401, 429, 406) or never connected. */
function hadNoEffect(err: unknown): boolean {
  if (err instanceof CoderApiError) return err.status === 401 || err.status === 429 || err.status === 406;
  if (err instanceof CoderNetworkError) {
    const code = (err.cause as { cause?: { code?: string } } | undefined)?.cause?.code ?? '';
    return ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code) || /^ERR_TLS|CERT/.test(code);
  }
  return false;
}

function shortAnswer(err: CoderApiError): string {
  return `${err.status}${err.coderMessage ? `: ${err.coderMessage}` : ''}`;
}

export async function createWorkspace(client: CoderClient, test: CoderTemplateTest, signal: AbortSignal): Promise<Step> {
  const s = test.status!;
  const name = s.workspaceName!;
  try {
    const ws = await client.request('POST', '/api/v2/users/{user}/workspaces', {
      params: { user: s.ownerID! },
      body: {
        name,
        template_version_id: s.templateVersionID!,
        rich_parameter_values: (test.spec.parameters ?? []).map((p) => ({ name: p.name, value: p.value ?? '' })),
        automatic_updates: 'never',
      },
      ...once(signal),
    });
    if (!ws?.id || !ws.latest_build?.id)
      throw new CoderAnswerMismatch('Coder answered the workspace create without a workspace or build id.');
    expectSame('workspace name', name, ws.name);
    expectSame('workspace of the build', ws.id, ws.latest_build.workspace_id);
    expectSame('owner', s.ownerID, ws.owner_id);
    expectSame('template version', s.templateVersionID, ws.latest_build.template_version_id);
    if (ws.latest_build.transition !== 'start')
      throw new CoderAnswerMismatch(`Coder answered a ${ws.latest_build.transition} build, not a start build.`);
    return wait(R.WaitingForBuild, `Workspace ${name} was created.`, { status: { workspaceID: ws.id, startBuildID: ws.latest_build.id } });
  } catch (err) {
    if (err instanceof CoderAnswerMismatch) throw err;
    if (hadNoEffect(err)) {
      const cleared = { createAttemptTime: undefined };
      if (err instanceof CoderApiError && err.status === 406) {
        return wait(R.TemplateVersionImporting, `Template version ${s.templateVersionName} is not imported yet.`, { status: cleared });
      }
      const rateLimited = err instanceof CoderApiError && err.status === 429;
      return wait(R.CreateRetrying, `The workspace create had no effect (${(err as Error).message.slice(0, 120)}); it is sent again.`, {
        status: cleared,
        rateLimited,
      });
    }
    // Coder's router refused the call before any handler ran, so no workspace was made.
    if (isRouteNotServed(err)) {
      return fail(R.EndpointNotFound, endpointNotFoundMessage(err), {
        status: { createAttemptTime: undefined },
        workspaceDeleted: notCreated,
      });
    }
    if (err instanceof CoderApiError && err.status === 409) {
      return fail(R.WorkspaceNameConflict, `Coder refused the workspace name ${name} as taken (409).`, {
        status: { createAttemptTime: undefined },
        workspaceDeleted: notCreated,
      });
    }
    if (err instanceof CoderApiError && err.status >= 400 && err.status < 500) {
      return fail(R.CreateRejected, `Coder rejected the workspace create: ${shortAnswer(err)}.`, {
        status: { createAttemptTime: undefined },
        workspaceDeleted: notCreated,
      });
    }
    if (signal.aborted) throw err;
    return wait(R.ConfirmingCreate, 'The create result is uncertain; the controller only reads Coder until the workspace appears.');
  }
}
