// The operator as its own process, under its generated RBAC, against a real API server: start-up
// checks, leader election and failover, probes and metrics, and no writes while nothing changes.
import { CoordinationV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, type CoderControlPlaneClient } from '../../generated/clients/index.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { writeVerbs } from '../harness/audit.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import {
  installOperatorRbac,
  operatorNamespace,
  operatorServiceAccount,
  startOperator,
  type RunningOperator,
} from '../harness/operator.ts';
import { sampleValue } from '../harness/prometheus.ts';
import { eventually } from '../harness/wait.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';

const operatorUser = `system:serviceaccount:${operatorNamespace}:${operatorServiceAccount}`;
const namespace = 'operator-test';

async function metricsText(op: RunningOperator): Promise<string> {
  return (await fetch(op.metricsUrl)).text();
}

async function isLeader(op: RunningOperator): Promise<boolean> {
  return sampleValue(await metricsText(op), 'leader_election_master_status', { name: 'coder-k8s-controller.coder.com' }) === 1;
}

/** Finished control-plane reconciles, whatever their result (one that asks to look again later counts too). */
function reconciles(metrics: string): number {
  return ['success', 'requeue_after', 'requeue', 'error']
    .map((result) => sampleValue(metrics, 'controller_runtime_reconcile_total', { controller: 'codercontrolplane', result }) ?? 0)
    .reduce((a, b) => a + b, 0);
}

const aControlPlaneIn = (name: string): CoderControlPlane => aControlPlane(name).inNamespace(namespace).manifest();

async function observed(client: CoderControlPlaneClient, name: string): Promise<boolean> {
  const cp = await client.get(namespace, name);
  return cp.status?.observedGeneration === cp.metadata.generation;
}

describe('coder-k8s operator process', () => {
  let cp: ControlPlane;
  let kubeconfig: string;
  let client: CoderControlPlaneClient;
  const operators: RunningOperator[] = [];

  before(async () => {
    cp = await startControlPlane();
    await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', namespace]);
    client = coderControlPlaneClient(cp.adminConfig());
  });
  after(async () => {
    for (const op of operators) await op.process.stop();
    await cp?.stop();
  });

  it('refuses to start while a CRD of a reconciled kind is missing, naming it and the fix', async () => {
    const crds = ['config/crd/bases/coder.com_codercontrolplanes.yaml', 'config/crd/bases/coder.com_coderprovisioners.yaml'];
    kubeconfig = await installOperatorRbac(cp, crds);
    const op = await startOperator(cp, kubeconfig, { waitReady: false });
    operators.push(op);
    await eventually('the operator to exit', async () => op.process.hasExited, { timeoutMs: 30_000 });
    const log = readFileSync(op.logFile, 'utf8');
    const listed = /are not installed: (.*?);/.exec(log)?.[1]?.split(', ').sort();
    assert.deepEqual(listed, [
      'coderaigatewaykeys.coder.com',
      'coderaiproviders.coder.com',
      'codermcpservers.coder.com',
      'codertemplatetests.coder.com',
      'coderworkspaceproxies.coder.com',
    ]);
    assert.match(log, /kubectl apply -f config\/crd\/bases\//);
    assert.equal(op.process.exitStatus, 1);
    kubeconfig = await installOperatorRbac(cp);
  });

  it('says an unknown --app is an error and lists the valid modes', async () => {
    const op = await startOperator(cp, kubeconfig, { waitReady: false, args: ['--app=everything'] });
    await eventually('the operator to exit', async () => op.process.hasExited, { timeoutMs: 30_000 });
    assert.match(
      readFileSync(op.logFile, 'utf8'),
      /--app=everything: unknown mode; valid modes are all, controller, aggregated-apiserver, mcp-http/,
    );
    assert.equal(op.process.exitStatus, 1);
  });

  it('reconciles with exactly one of two replicas, and fails over when the leader is killed', async () => {
    const first = await startOperator(cp, kubeconfig);
    operators.push(first);
    await eventually('the first replica to lead', () => isLeader(first), { timeoutMs: 30_000 });
    const second = await startOperator(cp, kubeconfig);
    operators.push(second);
    await client.create(aControlPlaneIn('ha-1'));
    await eventually('ha-1 to be reconciled', () => observed(client, 'ha-1'));
    assert.equal(await isLeader(second), false);
    assert.equal(reconciles(await metricsText(second)), 0, 'the standby reconciled nothing');
    assert.ok(reconciles(await metricsText(first)) >= 1, 'the leader reconciled');

    const killedAt = Date.now();
    await first.process.kill();
    await eventually('the second replica to take over', () => isLeader(second), { timeoutMs: 30_000, intervalMs: 100 });
    const failoverMs = Date.now() - killedAt;
    console.log(`leader failover after SIGKILL: ${failoverMs} ms`);
    // The standby counts the lease from when it saw the last renewal (its polls are up to 2.4 s apart),
    // then tries again every 2.4 s at most: the lease plus two retry periods, plus a second for requests.
    const boundMs = 15_000 + 2 * 2_000 * 1.2 + 1_000;
    assert.ok(failoverMs <= boundMs, `took over within the lease duration plus two retry periods (${boundMs} ms), took ${failoverMs} ms`);
    await client.create(aControlPlaneIn('ha-2'));
    await eventually('ha-2 to be reconciled by the new leader', () => observed(client, 'ha-2'));

    const third = await startOperator(cp, kubeconfig);
    operators.push(third);
    const stoppedAt = Date.now();
    await second.process.stop(30_000);
    assert.equal(second.process.exitStatus, 0, 'SIGTERM drains and exits 0');
    await eventually('the third replica to take over after a clean stop', () => isLeader(third), { timeoutMs: 30_000, intervalMs: 100 });
    const handoverMs = Date.now() - stoppedAt;
    console.log(`leader handover after SIGTERM: ${handoverMs} ms`);
    assert.ok(handoverMs < 8_000, `a released lease is taken at once, took ${handoverMs} ms`);
    assert.match(readFileSync(second.logFile, 'utf8'), /released the leader lease/);
    const lease = await cp
      .adminConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: operatorNamespace, name: 'coder-k8s-controller.coder.com' });
    assert.ok(lease.spec?.holderIdentity?.length, 'the lease has a holder');
  });

  it('answers /readyz and /healthz, and serves controller-runtime metrics', async () => {
    const op = operators.at(-1)!;
    for (const path of ['/healthz', '/readyz']) {
      const res = await fetch(`${op.probesUrl}${path}`);
      assert.equal(res.status, 200, path);
    }
    // This replica took the lease in the test above: its first reconciles, which create the per-controller series,
    // may still be queued.
    let text = '';
    await eventually('the leader to count its first reconciles', async () => {
      text = await metricsText(op);
      return text.includes('controller_runtime_reconcile_total{');
    });
    for (const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_time_seconds_count',
      'workqueue_adds_total',
      'workqueue_queue_duration_seconds_count',
      'workqueue_work_duration_seconds_count',
      'workqueue_depth',
      'leader_election_master_status',
    ]) {
      assert.ok(text.includes(`${name}{`), `${name} is exported`);
    }
    assert.ok((sampleValue(text, 'rest_client_requests_total', { code: '200', method: 'GET' }) ?? 0) > 0, 'API requests are counted');
  });

  it('makes no writes to the API server while nothing changes (200 objects, 60 s of quiet)', async () => {
    const op = operators.at(-1)!;
    await Promise.all(Array.from({ length: 200 }, (_, i) => client.create(aControlPlaneIn(`quiet-${i}`))));
    await eventually(
      'all 200 to be reconciled',
      async () => {
        const list = await client.list(namespace);
        return list.items.filter((o) => o.status?.observedGeneration === o.metadata.generation).length >= 202;
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );
    await new Promise((r) => setTimeout(r, 2_000));
    const since = new Date();
    await new Promise((r) => setTimeout(r, 60_000));
    const until = new Date();
    const writes = await cp.auditEvents({ username: operatorUser, since, until, verbs: writeVerbs });
    const objectWrites = writes.filter((e) => e.objectRef?.resource !== 'leases');
    const leaseRenewals = writes.length - objectWrites.length;
    console.log(`quiet period: ${objectWrites.length} object writes, ${leaseRenewals} lease renewals`);
    assert.deepEqual(
      objectWrites.map((e) => `${e.verb} ${e.requestURI}`),
      [],
    );
    assert.equal(await isLeader(op), true);
  });
});
