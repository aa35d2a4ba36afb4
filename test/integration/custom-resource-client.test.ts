// The generated typed clients do what they say against a real API server.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, type CoderControlPlaneClient } from '../../generated/clients/index.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { apiStatus } from '../harness/api-status.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';
import { eventually } from '../harness/wait.ts';

const namespace = 'client-test';

const aControlPlaneIn = (name: string, spec: CoderControlPlane['spec'] = {}): CoderControlPlane =>
  aControlPlane(name).inNamespace(namespace).withSpec(spec).manifest();

describe('typed custom resource client', () => {
  let cp: ControlPlane;
  let client: CoderControlPlaneClient;

  before(async () => {
    cp = await startControlPlane();
    await kubectlOk(cp.adminKubeconfigPath, ['apply', '-f', 'config/crd/bases/coder.com_codercontrolplanes.yaml']);
    await waitForCrdsEstablished(cp.adminKubeconfigPath, ['codercontrolplanes.coder.com']);
    await cp
      .adminConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: namespace } } });
    client = coderControlPlaneClient(cp.adminConfig());
  });
  after(() => cp?.stop());

  it('creates, reads and lists with server-side defaults applied', async () => {
    const created = await client.create(aControlPlaneIn('one', { replicas: 2 }));
    assert.equal(created.spec?.replicas, 2);
    assert.equal(created.spec?.image, 'ghcr.io/coder/coder:latest', 'schema default applied');
    const read = await client.get(namespace, 'one');
    assert.equal(read.metadata.uid, created.metadata.uid);
    const inNamespace = await client.list(namespace);
    const everywhere = await client.list();
    assert.deepEqual(
      inNamespace.items.map((o) => o.metadata.name),
      ['one'],
    );
    assert.ok(everywhere.items.some((o) => o.metadata.namespace === namespace && o.metadata.name === 'one'));
  });

  it('rejects unknown fields instead of dropping them', async () => {
    const bad = aControlPlane('unknown-field').inNamespace(namespace).withRawSpec({ replicas: 1, replicaz: 3 }).manifest();
    await assert.rejects(client.create(bad), (err) => {
      const status = apiStatus(err);
      return status.code === 400 && /unknown field "spec.replicaz"/.test(status.message);
    });
  });

  it('replaces with optimistic concurrency and merge-patches', async () => {
    const current = await client.get(namespace, 'one');
    const replaced = await client.replace({ ...current, spec: { ...current.spec, replicas: 3 } });
    assert.equal(replaced.spec?.replicas, 3);
    await assert.rejects(
      client.replace({ ...current, spec: { ...current.spec, replicas: 4 } }),
      (err: { code?: number }) => err.code === 409,
    );
    const patched = await client.mergePatch(namespace, 'one', { spec: { image: 'ghcr.io/coder/coder:v2.30.0' } });
    assert.equal(patched.spec?.image, 'ghcr.io/coder/coder:v2.30.0');
    assert.equal(patched.spec?.replicas, 3);
  });

  it('applies with a field manager and writes status through the subresource', async () => {
    const applied = await client.apply(aControlPlaneIn('applied', { replicas: 5 }), { fieldManager: 'coder-k8s' });
    assert.ok(applied.metadata.managedFields?.some((f) => f.manager === 'coder-k8s' && f.operation === 'Apply'));
    const withStatus = await client.mergePatchStatus(namespace, 'applied', { status: { phase: 'Pending' } });
    assert.equal(withStatus.status?.phase, 'Pending');
    const statusApplied = await client.applyStatus(
      {
        ...aControlPlaneIn('applied'),
        spec: undefined,
        status: { phase: 'Ready', url: 'http://applied.client-test.svc.cluster.local:80' },
      },
      { fieldManager: 'coder-k8s', force: true },
    );
    assert.equal(statusApplied.status?.phase, 'Ready');
    assert.equal(statusApplied.spec?.replicas, 5, 'status apply leaves spec alone');
    // The main resource ignores status; the subresource ignores spec.
    const ignored = await client.mergePatch(namespace, 'applied', { status: { phase: 'Pending' } });
    assert.equal(ignored.status?.phase, 'Ready');
  });

  it('watches changes and deletes', async () => {
    const seen: string[] = [];
    const list = await client.list(namespace);
    const controller = await client.watch(
      namespace,
      { resourceVersion: list.metadata?.resourceVersion ?? '', allowWatchBookmarks: true },
      (type, obj) => seen.push(`${type} ${obj.metadata.name}`),
      () => undefined,
    );
    try {
      await client.create(aControlPlaneIn('watched'));
      await client.delete(namespace, 'watched');
      await eventually('ADDED and DELETED events of "watched"', async () =>
        seen.includes('ADDED watched') && seen.includes('DELETED watched') ? seen : undefined,
      );
    } finally {
      controller.abort();
    }
    await assert.rejects(client.get(namespace, 'watched'), (err: { code?: number }) => err.code === 404);
  });
});
