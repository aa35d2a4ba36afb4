// Two operators on one control plane, each its own shard (--selector) with its own Lease
// (--leader-election-id) and ServiceAccount: each control plane is reconciled by exactly one of them,
// and one that no shard selects by neither. The audit log tells whose writes are whose.
import assert from 'node:assert/strict';
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

const namespace = 'sharded';
const shardBAccount = 'coder-k8s-shard-b';
const userOf = (account: string) => `system:serviceaccount:${operatorNamespace}:${account}`;

const inShard = (name: string, shard?: string): CoderControlPlane => {
  const manifest = aControlPlane(name).inNamespace(namespace).manifest();
  return {
    ...manifest,
    metadata: { ...manifest.metadata, ...(shard ? { labels: { 'example.com/shard': shard } } : {}) },
    spec: { ...manifest.spec, operatorAccess: { disabled: true } },
  };
};

describe('sharding: one operator per label-selected shard', () => {
  let cp: ControlPlane;
  let client: CoderControlPlaneClient;
  const operators: RunningOperator[] = [];

  before(async () => {
    cp = await startControlPlane();
    const kubeconfigA = await installOperatorRbac(cp);
    // Shard b runs as another ServiceAccount with the same ClusterRole, so the audit log tells the two apart.
    const kubeconfigB = await cp.operatorKubeconfig(operatorNamespace, shardBAccount);
    await kubectlOk(cp.adminKubeconfigPath, [
      'create',
      'clusterrolebinding',
      shardBAccount,
      '--clusterrole=manager-role',
      `--serviceaccount=${operatorNamespace}:${shardBAccount}`,
    ]);
    await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', namespace]);
    client = coderControlPlaneClient(cp.adminConfig());
    for (const [shard, kubeconfig] of [
      ['a', kubeconfigA],
      ['b', kubeconfigB],
    ] as const) {
      operators.push(
        await startOperator(cp, kubeconfig, {
          args: [`--selector=example.com/shard=${shard}`, `--leader-election-id=coder-k8s-shard-${shard}`],
        }),
      );
    }
  });
  after(async () => {
    for (const op of operators) await op.process.stop();
    await cp?.stop();
  });

  it('reconciles each control plane in exactly one shard, each shard leading on its own Lease', async () => {
    for (const [i, op] of operators.entries()) {
      const lease = `coder-k8s-shard-${'ab'[i]}`;
      await eventually(`operator ${'ab'[i]} to lead on Lease ${lease}`, async () => {
        const text = await (await fetch(op.metricsUrl)).text();
        return sampleValue(text, 'leader_election_master_status', { name: lease }) === 1;
      });
    }
    const started = new Date();
    const shards = { 'cp-a1': 'a', 'cp-a2': 'a', 'cp-b1': 'b', 'cp-b2': 'b' } as const;
    for (const [name, shard] of Object.entries(shards)) await client.create(inShard(name, shard));
    await client.create(inShard('cp-none'));

    for (const name of Object.keys(shards)) {
      await eventually(`${name} to be observed`, async () => {
        const obj = await client.get(namespace, name);
        return obj.status?.observedGeneration === obj.metadata.generation;
      });
    }
    const writers = async (name: string) => {
      const events = await cp.auditEvents({ since: started, verbs: writeVerbs });
      const touching = events.filter(
        (e) => e.objectRef?.resource === 'codercontrolplanes' && e.objectRef.namespace === namespace && e.objectRef.name === name,
      );
      return new Set(touching.map((e) => e.user.username).filter((u) => u.startsWith(`system:serviceaccount:${operatorNamespace}:`)));
    };
    for (const [name, shard] of Object.entries(shards)) {
      const expected = userOf(shard === 'a' ? operatorServiceAccount : shardBAccount);
      assert.deepEqual([...(await writers(name))], [expected], `${name} (shard ${shard}) is written by its shard's operator only`);
    }
    // Both shards have had time to see cp-none (created before the last ones were observed).
    assert.equal((await client.get(namespace, 'cp-none')).status, undefined, 'no shard reconciles an object no shard selects');
    assert.deepEqual([...(await writers('cp-none'))], []);
  });
});
