import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CoderTemplateTestConditionChanges, CoderTemplateTestStatus } from '../../../../generated/types/codertemplatetest.ts';
import { workspaceNameOf } from '../../../../src/controllers/codertemplatetest/names.ts';
import {
  cleanupDone,
  nextCleanupStatus,
  nextTestStatus,
  recordedReadiness,
  templateTestReadyRule,
  workspaceDeletedChange,
} from '../../../../src/controllers/codertemplatetest/status.ts';
import { fail, R, wait, WD, type WorkspaceDeletedState } from '../../../../src/controllers/codertemplatetest/step.ts';
import { Outcomes } from '../../../../src/controllers/shared/reconcile/outcome.ts';
import { nextStatus } from '../../../../src/controllers/shared/reconcile/status.ts';
import { aTemplateTest } from '../../../fixtures/codertemplatetest.ts';

const now = new Date('2026-12-01T10:00:00Z');
const aTest = (status?: CoderTemplateTestStatus, annotations?: Record<string, string>) => {
  const t = aTemplateTest('t').withStatus(status).build();
  if (annotations) t.metadata.annotations = annotations;
  return t;
};
const afterCleanup = (status: CoderTemplateTestStatus, deleted: WorkspaceDeletedState) =>
  nextCleanupStatus(aTest(status), { conditions: workspaceDeletedChange(deleted) }, now);
const line = (status: CoderTemplateTestStatus, type: string) => {
  const c = status.conditions?.find((x) => x.type === type);
  return c ? `${c.status} ${c.reason}` : 'none';
};

describe('template-test status', () => {
  it('names the workspace ktt- and the first 28 hex digits of the UID, and refuses a UID without them', () => {
    assert.equal(workspaceNameOf('0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0'), 'ktt-0f1e2d3c4b5a69788796a5b4c3d2');
    assert.equal(workspaceNameOf('0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0').length, 32);
    assert.throws(() => workspaceNameOf('uid-t'), /fewer than 28 hex digits/);
  });

  it('is Pending while no create request can have been sent and Running once one may have', () => {
    const pending = nextTestStatus(aTest(), wait(R.TemplateNotFound, 'no template'), now);
    assert.equal(pending.phase, 'Pending');
    assert.equal(line(pending, 'Reconciling'), 'True TemplateNotFound');
    assert.equal(line(pending, 'Ready'), 'False TemplateNotFound');
    assert.equal(line(pending, 'Stalled'), 'False TemplateNotFound');
    assert.equal(line(pending, 'WorkspaceDeleted'), 'none');
    const running = nextTestStatus(
      aTest(),
      wait(R.CreatingWorkspace, 'creating', { status: { createAttemptTime: '2026-12-01T10:00:00Z' } }),
      now,
    );
    assert.equal(running.phase, 'Running');
  });

  it('fails with Stalled True, a completion time, and WorkspaceDeleted by whether a workspace may exist', () => {
    const before = fail(R.TemplateDeprecated, 'deprecated');
    const notCreated = nextTestStatus(aTest(), before, now);
    assert.equal(notCreated.phase, 'Failed');
    assert.equal(notCreated.completionTime, '2026-12-01T10:00:00Z');
    assert.equal(line(notCreated, 'Stalled'), 'True TemplateDeprecated');
    assert.equal(line(notCreated, 'Reconciling'), 'False TemplateDeprecated');
    assert.equal(line(notCreated, 'WorkspaceDeleted'), 'True NotCreated');
    const pending = nextTestStatus(aTest({ workspaceID: 'w' }), fail(R.BuildFailed, 'failed'), now);
    assert.equal(line(pending, 'WorkspaceDeleted'), 'False CleanupPending');
  });

  it('succeeds with Ready True and WorkspaceDeleted True Deleted', () => {
    const done = nextTestStatus(aTest({ workspaceID: 'w' }), { kind: 'succeed', message: 'passed' }, now);
    assert.equal(done.phase, 'Succeeded');
    assert.equal(line(done, 'Ready'), 'True Succeeded');
    assert.equal(line(done, 'Stalled'), 'False Succeeded');
    assert.equal(line(done, 'WorkspaceDeleted'), 'True Deleted');
  });

  it('truncates the message to 256 bytes of valid UTF-8', () => {
    const status = nextTestStatus(aTest(), wait(R.CoderUnavailable, 'é'.repeat(300)), now);
    assert.ok(Buffer.byteLength(status.message!) <= 256);
    assert.ok(!status.message!.includes('\uFFFD'));
  });

  it('changes only WorkspaceDeleted in cleanup, never the result', () => {
    const failed = nextTestStatus(aTest({ workspaceID: 'w' }), fail(R.BuildFailed, 'failed'), now);
    const deleted: WorkspaceDeletedState = { status: 'True', reason: WD.Deleted, message: 'gone' };
    const cleaned = afterCleanup(failed, deleted);
    assert.equal(cleaned.phase, 'Failed');
    assert.equal(cleaned.reason, 'BuildFailed');
    assert.equal(line(cleaned, 'WorkspaceDeleted'), 'True Deleted');
    assert.equal(line(cleaned, 'Stalled'), 'True BuildFailed');
    // A final test that is not deleted is cleaned up through the reconcile's own status, to the same effect.
    const out = new Outcomes<CoderTemplateTestStatus, CoderTemplateTestConditionChanges, string>().add({
      conditions: workspaceDeletedChange(deleted),
      ...recordedReadiness(failed),
    });
    assert.deepEqual(nextStatus(aTest(failed), out, templateTestReadyRule, now), cleaned);
  });

  it('keeps Ready, Reconciling, Stalled and the result as they are in a reconcile that decides nothing about the test', () => {
    const later = new Date('2026-12-01T10:05:00Z');
    const results = [
      nextTestStatus(aTest(), wait(R.WaitingForAgents, 'waiting', { status: { workspaceID: 'w' } }), now),
      nextTestStatus(aTest({ workspaceID: 'w' }), fail(R.BuildFailed, 'failed'), now),
      nextTestStatus(aTest({ workspaceID: 'w' }), { kind: 'succeed', message: 'passed' }, now),
    ];
    for (const status of results) {
      const out = new Outcomes<CoderTemplateTestStatus, CoderTemplateTestConditionChanges, string>().add(recordedReadiness(status));
      assert.deepEqual(nextStatus(aTest(status), out, templateTestReadyRule, later), status, status.phase);
    }
  });

  it('is done with cleanup when nothing can be left, or when retained while the annotation still says retain', () => {
    const failed = nextTestStatus(aTest({ workspaceID: 'w' }), fail(R.BuildFailed, 'failed'), now);
    assert.equal(cleanupDone(aTest(failed)), false);
    const retained = afterCleanup(failed, { status: 'False', reason: WD.Retained, message: 'kept' });
    assert.equal(cleanupDone(aTest(retained, { 'coder.com/deletion-policy': 'retain' })), true);
    assert.equal(cleanupDone(aTest(retained, { 'coder.com/deletion-policy': 'delete' })), false);
    const gone = afterCleanup(failed, { status: 'Unknown', reason: WD.ControlPlaneGone, message: 'gone' });
    assert.equal(cleanupDone(aTest(gone)), true);
    assert.equal(cleanupDone(aTest({ phase: 'Running' })), true, 'a test that never sent a create holds nothing in Coder');
  });
});
