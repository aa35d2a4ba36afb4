// A template test's confirm step: after a create whose result is uncertain, only reads
// Coder until it can tell whether this test's workspace exists. A workspace counts as the test's only with
// provenance: the pinned organization, template and version, and a first "claim" build that the operator
// user started. Used by the running test and by cleanup.
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import { CoderApiError } from '../../coder/errors.ts';
import { once } from './coder-access.ts';
import { confirmSettleMs, siteOwnerWaitMs } from './intervals.ts';
import { isUUID } from './resolve-inputs.ts';
import { expectSame, fail, R, wait, WD, type Step } from './step.ts';

/** Coder's prebuilds system user: builds it starts are not a claim. */
const prebuildsUserId = 'c42fdf75-3097-471c-8c33-fb52454d81c0';

export type Confirmation =
  | { found: 'live'; workspaceID: string; startBuildID: string }
  | { found: 'deleted' }
  | { found: 'foreign' }
  | { found: 'none'; settled: boolean; operatorIsSiteOwner: boolean };

function provenBuild(ws: Schemas['Workspace'], builds: Schemas['WorkspaceBuild'][], test: CoderTemplateTest, operatorId: string) {
  const s = test.status!;
  if (ws.organization_id !== s.organizationID || ws.template_id !== s.templateID) return undefined;
  if (!builds.some((b) => b.build_number === 1)) return undefined;
  const claim = builds.filter((b) => b.initiator_id !== prebuildsUserId).sort((a, b) => a.build_number - b.build_number)[0];
  if (!claim || claim.transition !== 'start' || claim.initiator_id !== operatorId || claim.template_version_id !== s.templateVersionID)
    return undefined;
  return claim;
}

export async function confirmCreate(client: CoderClient, test: CoderTemplateTest, now: Date, signal: AbortSignal): Promise<Confirmation> {
  const s = test.status!;
  for (const [field, value] of Object.entries({
    ownerID: s.ownerID,
    organizationID: s.organizationID,
    templateID: s.templateID,
    templateVersionID: s.templateVersionID,
  })) {
    if (!isUUID(value)) throw new Error(`assertion failed: status.${field} is not a UUID while a create may have been sent`);
  }
  if (!s.workspaceName) throw new Error('assertion failed: status.workspaceName is empty while a create may have been sent');
  const operator = await client.request('GET', '/api/v2/users/me', once(signal));
  let named: Schemas['Workspace'] | undefined;
  try {
    named = await client.request('GET', '/api/v2/users/{user}/workspace/{workspaceName}', {
      params: { user: s.ownerID!, workspaceName: s.workspaceName },
      query: { include_deleted: true },
      ...once(signal),
    });
  } catch (err) {
    if (!isCoderNotFound(err)) throw err;
  }
  if (named) {
    expectSame('workspace name', s.workspaceName, named.name);
    expectSame('owner', s.ownerID, named.owner_id);
    if (!isUUID(named.id)) throw new Error('assertion failed: Coder answered a workspace without an id');
    let live = true;
    try {
      await client.request('GET', '/api/v2/workspaces/{workspace}', { params: { workspace: named.id }, ...once(signal) });
    } catch (err) {
      if (!(err instanceof CoderApiError && err.status === 410)) throw err;
      live = false;
    }
    const builds = await client.request('GET', '/api/v2/workspaces/{workspace}/builds', {
      params: { workspace: named.id },
      query: { limit: 100 },
      ...once(signal),
    });
    const claim = provenBuild(named, builds, test, operator.id);
    if (claim && live) return { found: 'live', workspaceID: named.id, startBuildID: claim.id };
    if (claim) return { found: 'deleted' };
    if (live) return { found: 'foreign' };
  }
  const markedAt = Date.parse(s.createAttemptTime ?? '') || now.getTime();
  return {
    found: 'none',
    settled: now.getTime() - markedAt >= confirmSettleMs,
    operatorIsSiteOwner: (operator.roles ?? []).some((r) => r.name === 'owner'),
  };
}

/** What a confirmation means for a running test. */
export function confirmationStep(c: Confirmation): Step {
  switch (c.found) {
    case 'live':
      return wait(R.WaitingForBuild, 'The workspace of this test was found after an uncertain create; the test goes on with it.', {
        status: { workspaceID: c.workspaceID, startBuildID: c.startBuildID },
      });
    case 'deleted':
      return fail(R.WorkspaceDeletedExternally, 'The workspace of this test was deleted by someone else.', {
        workspaceDeleted: { status: 'True', reason: WD.DeletedExternally, message: 'Someone else deleted the workspace.' },
      });
    case 'foreign':
      return fail(R.WorkspaceNameConflict, 'A live workspace with the test name exists, but nothing proves that this test created it.', {
        workspaceDeleted: {
          status: 'Unknown',
          reason: WD.OwnershipUnknown,
          message: "The workspace cannot be proven to be this test's, so it is never touched; only the retain policy releases the test.",
        },
      });
    case 'none':
      if (!c.settled)
        return wait(R.ConfirmingCreate, 'The create result is uncertain; the controller only reads Coder until the workspace appears.');
      if (!c.operatorIsSiteOwner) {
        return wait(
          R.ConfirmingCreate,
          "No workspace appeared, but only a site owner's answer proves there is none; give the operator user the owner role.",
          {
            pollMs: siteOwnerWaitMs,
          },
        );
      }
      return fail(R.CreateOutcomeUnknown, 'No workspace of this test appeared within 15 minutes after an uncertain create.', {
        status: { createAttemptTime: undefined },
        workspaceDeleted: { status: 'True', reason: WD.NotCreated, message: 'No workspace of this test exists.' },
      });
  }
}
