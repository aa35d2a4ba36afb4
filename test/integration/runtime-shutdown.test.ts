// Shutdown against a real API server: running reconciles see their signal abort, and the leader lease
// is given up only after they have returned.
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/runtime/logger.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { builtinResources } from '../../src/runtime/resource.ts';
import { leaderElectionID } from '../../src/runtime/leader-election.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { eventually } from '../harness/wait.ts';

const namespace = 'shutdown-test';
const identity = 'replica-under-test';

describe('Manager shutdown on a real API server', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let leases: CoordinationV1Api;

  before(async () => {
    cp = await startControlPlane();
    core = cp.adminConfig().makeApiClient(CoreV1Api);
    leases = cp.adminConfig().makeApiClient(CoordinationV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
  });
  after(() => cp?.stop());

  const leaseHolder = async () => (await leases.readNamespacedLease({ namespace, name: leaderElectionID })).spec?.holderIdentity ?? '';
  const aManager = (options: { identity: string; shutdownTimeoutMs: number; onLeadershipLost: () => void }) =>
    new Manager({
      kubeConfig: cp.adminConfig(),
      logger: createLogger({ level: 'silent' }),
      metrics: createMetrics(),
      namespaces: [namespace],
      concurrency: 1,
      leaderElection: { namespace, identity: options.identity },
      shutdownTimeoutMs: options.shutdownTimeoutMs,
      onLeadershipLost: options.onLeadershipLost,
    });

  it('aborts a running reconcile and releases the lease only after it returned', async () => {
    const seen: string[] = [];
    const manager = aManager({
      identity,
      // Far longer than the test takes: a pass cannot come from the timeout.
      shutdownTimeoutMs: 120_000,
      onLeadershipLost: () => seen.push('leadership lost'),
    });
    manager
      .controller('blocker')
      .for(builtinResources.configMap)
      .build(async (request, { signal }) => {
        if (request.name !== 'blocker') return;
        seen.push('reconcile started');
        // Stands in for a Coder or PostgreSQL call that ends when its signal aborts.
        await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
        seen.push('signal aborted');
        // Still doing work after the abort (a rollback, say): the lease must still be ours.
        seen.push(`lease holder while returning: ${await leaseHolder()}`);
        seen.push('reconcile returned');
      });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'blocker' } } });
    await manager.start();
    await eventually('the reconcile to start', async () => seen.includes('reconcile started'), { timeoutMs: 60_000 });
    assert.equal(await leaseHolder(), identity);

    const allReturned = await manager.shutdown();
    assert.deepEqual(seen, ['reconcile started', 'signal aborted', `lease holder while returning: ${identity}`, 'reconcile returned']);
    assert.equal(allReturned, true);
    assert.equal(await leaseHolder(), '', 'the lease is released once the reconcile returned');
  });

  it('keeps the lease (to expire on its own) when a reconcile outlives the graceful shutdown timeout', async () => {
    const stubborn = 'stubborn-replica';
    let started = false;
    const manager = aManager({ identity: stubborn, shutdownTimeoutMs: 1_000, onLeadershipLost: () => undefined });
    manager
      .controller('stubborn')
      .for(builtinResources.configMap)
      .build(async (request) => {
        if (request.name !== 'stubborn') return;
        started = true;
        // Ignores its signal and never returns.
        await new Promise(() => undefined);
      });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'stubborn' } } });
    await manager.start();
    await eventually('the reconcile to start', async () => started, { timeoutMs: 60_000 });
    assert.equal(await manager.shutdown(), false);
    assert.equal(await leaseHolder(), stubborn, 'the lease is not handed over while a reconcile may still act');
  });
});
