import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CoderClient } from '../../../../src/coder/client.ts';
import { CoderFacts } from '../../../../src/controllers/shared/coder-facts.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';

/** A client whose build info answers count the calls; `fail` makes the next call reject. */
function countingClient() {
  const state = { calls: 0, fail: false, version: 'v2.34.0' };
  const client = {
    getBuildInfo: async () => {
      state.calls++;
      if (state.fail) throw new Error('connection refused');
      return { version: state.version };
    },
  } as unknown as CoderClient;
  return { state, client };
}

describe('CoderFacts', () => {
  it('reads build info once per control plane within the period, and again after it', async () => {
    let now = 0;
    const facts = new CoderFacts({ buildInfoTtlMs: 1000, now: () => now });
    const { state, client } = countingClient();
    const cp = aControlPlane('coder').build();
    await Promise.all([facts.buildInfo(cp, client), facts.buildInfo(cp, client), facts.buildInfo(cp, client)]);
    assert.equal(state.calls, 1);
    now = 999;
    await facts.buildInfo(cp, client);
    assert.equal(state.calls, 1);
    now = 1000;
    state.version = 'v2.35.0';
    assert.equal((await facts.buildInfo(cp, client)).version, 'v2.35.0');
    assert.equal(state.calls, 2);
  });

  it('reads again at once for another generation of the control plane, and after a failure', async () => {
    const facts = new CoderFacts({ buildInfoTtlMs: 60_000, now: () => 0 });
    const { state, client } = countingClient();
    await facts.buildInfo(aControlPlane('coder').build(), client);
    const changed = aControlPlane('coder').build();
    changed.metadata.generation = 2;
    await facts.buildInfo(changed, client);
    assert.equal(state.calls, 2);
    const other = aControlPlane('other').build();
    state.fail = true;
    await assert.rejects(facts.buildInfo(other, client), /connection refused/);
    state.fail = false;
    await facts.buildInfo(other, client);
    assert.equal(state.calls, 4, 'a failed read is not kept');
  });
});
