import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { liveness, type LivenessInputs } from '../../../src/runtime/liveness.ts';

const now = 1_000_000;
const healthy: LivenessInputs = { reconciles: [], stuckAfterMs: 600_000 };

describe('liveness', () => {
  const cases: { name: string; inputs: LivenessInputs; reasons: string[] }[] = [
    { name: 'a replica that does not lead and reconciles nothing', inputs: healthy, reasons: [] },
    {
      name: 'a leader that renewed within the lease',
      inputs: { ...healthy, leader: { renewedAt: now - 15_000, leaseMs: 15_000 } },
      reasons: [],
    },
    {
      name: 'a leader whose last renewal is older than the lease',
      inputs: { ...healthy, leader: { renewedAt: now - 40_000, leaseMs: 15_000 } },
      reasons: ['leader lease not renewed for 40s (a lease lasts 15s)'],
    },
    {
      name: 'a long reconcile under the limit',
      inputs: { ...healthy, reconciles: [{ controller: 'cp', runningMs: 600_000 }] },
      reasons: [],
    },
    {
      name: 'a reconcile past the limit, and a leader that stopped renewing',
      inputs: {
        leader: { renewedAt: now - 16_000, leaseMs: 15_000 },
        reconciles: [{ controller: 'cp', runningMs: 601_000 }],
        stuckAfterMs: 600_000,
      },
      reasons: [
        'leader lease not renewed for 16s (a lease lasts 15s)',
        'controller cp: a reconcile has been running for 601s (limit 600s)',
      ],
    },
  ];
  for (const { name, inputs, reasons } of cases) {
    it(`${reasons.length ? 'fails' : 'passes'} for ${name}`, () => {
      assert.deepEqual(liveness(inputs, now), reasons.length ? { ok: false, reasons } : { ok: true });
    });
  }
});
