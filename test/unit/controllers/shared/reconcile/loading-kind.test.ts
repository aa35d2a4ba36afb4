// reconcilerLoadingKind: a kind's steps load with the first request, once, however many requests come while
// they load, and every request then runs on them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  reconcilerLoadingKind,
  type Kind,
  type KindDeps,
  type ReconciledObject,
} from '../../../../../src/controllers/shared/reconcile/kind.ts';
import type { AnyConditionChanges } from '../../../../../src/controllers/shared/reconcile/outcome.ts';
import type { ReconcileContext, Request } from '../../../../../src/runtime/controller.ts';

type AnyKind = Kind<ReconciledObject, KindDeps, AnyConditionChanges>;

describe('reconcilerLoadingKind', () => {
  it('loads the kind with the first request, once, and runs every request on it', async () => {
    const asked: string[] = [];
    // A kind whose cache holds nothing: each reconcile asks it for its object and ends there.
    const kind = {
      cached: (_ctx: KindDeps, request: Request) => {
        asked.push(request.name);
        return undefined;
      },
    } as unknown as AnyKind;
    let loads = 0;
    const reconcile = reconcilerLoadingKind({} as KindDeps, async () => {
      loads++;
      await nextTurn();
      return kind;
    });
    assert.equal(loads, 0, 'nothing loads before a request');

    const rc = {} as ReconcileContext;
    await Promise.all(['a', 'b', 'c'].map((name) => reconcile({ namespace: 'ns', name }, rc)));
    await reconcile({ namespace: 'ns', name: 'd' }, rc);

    assert.equal(loads, 1);
    assert.deepEqual(asked, ['a', 'b', 'c', 'd']);
  });
});
