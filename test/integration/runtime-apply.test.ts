// Server-side apply of owned objects against a real API server: a write only when the object does not
// already hold the intent, drift by others repaired, fields we stop setting removed; without a cached
// object only a create, so an object the cache has not seen yet is never taken over, except one this process
// created itself, which stands for itself until a cache reports it.
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyChild } from '../../src/controllers/shared/workload/foreign-object.ts';
import { Applier, fieldManager } from '../../src/runtime/apply.ts';
import { isConflict, KubeHttp } from '../../src/runtime/kube-http.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { Writer } from '../../src/runtime/writer.ts';
import { builtinResources, objectPath } from '../../src/runtime/resource.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { eventually } from '../harness/wait.ts';

const namespace = 'apply-test';

describe('Applier on a real API server', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let applier: Applier;
  const live = () => core.readNamespacedConfigMap({ namespace, name: 'settings' }) as Promise<V1ConfigMap>;
  const desired = (data: Record<string, string>): V1ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace, labels: { app: 'x' } },
    data,
  });
  const plain = (obj: V1ConfigMap) => JSON.parse(JSON.stringify(obj)) as V1ConfigMap;
  /** A Deployment asking for `cpu: 1000m`, which the API server stores as `1`: never a subset of what it stores. */
  const normalizedDeployment = (name: string) => {
    const labels = { app: name };
    const container = { name: 'c', image: 'busybox', resources: { requests: { cpu: '1000m' } } };
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [container] } } },
    };
  };

  before(async () => {
    cp = await startControlPlane();
    core = cp.adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    applier = new Applier(new KubeHttp(cp.adminConfig()));
  });
  after(() => cp?.stop());

  it('creates the object as field manager coder-k8s', async () => {
    const { wrote, object } = await applier.apply(builtinResources.configMap, desired({ a: '1' }), undefined);
    assert.equal(wrote, true);
    assert.deepEqual(object.data, { a: '1' });
    assert.ok((await live()).metadata!.managedFields!.some((f) => f.manager === fieldManager && f.operation === 'Apply'));
  });

  it('sends nothing when the object already holds the intent, also for a fresh process', async () => {
    const before = (await live()).metadata!.resourceVersion;
    assert.equal((await applier.apply(builtinResources.configMap, desired({ a: '1' }), plain(await live()))).wrote, false);
    const fresh = new Applier(new KubeHttp(cp.adminConfig()));
    assert.equal((await fresh.apply(builtinResources.configMap, desired({ a: '1' }), plain(await live()))).wrote, false);
    assert.equal((await live()).metadata!.resourceVersion, before);
  });

  it('repairs drift of its fields by another writer', async () => {
    const cm = await live();
    await core.replaceNamespacedConfigMap({ namespace, name: 'settings', body: { ...cm, data: { ...cm.data, a: 'changed' } } });
    const result = await applier.apply(builtinResources.configMap, desired({ a: '1' }), plain(await live()));
    assert.equal(result.wrote, true);
    assert.equal((await live()).data!.a, '1');
  });

  it('removes a field it no longer sets', async () => {
    await applier.apply(builtinResources.configMap, desired({ a: '1', b: '2' }), plain(await live()));
    assert.deepEqual((await live()).data, { a: '1', b: '2' });
    const result = await applier.apply(builtinResources.configMap, desired({ a: '1' }), plain(await live()));
    assert.equal(result.wrote, true);
    assert.deepEqual((await live()).data, { a: '1' });
  });

  it('only creates when no live object is given: one that exists answers 409 and is left as it was', async () => {
    const before = await live();
    await assert.rejects(applier.apply(builtinResources.configMap, desired({ a: 'taken' }), undefined), isConflict);
    assert.equal((await live()).metadata!.resourceVersion, before.metadata!.resourceVersion);
    assert.deepEqual((await live()).data, before.data);
  });

  it('sends nothing for an object it created that no cache has reported yet; once one has, the cache answers for it', async () => {
    const fresh = new Applier(new KubeHttp(cp.adminConfig()));
    const child: V1ConfigMap = { ...desired({ a: '1' }), metadata: { name: 'unseen', namespace } };
    const created = await fresh.apply(builtinResources.configMap, child, undefined);
    assert.equal(created.wrote, true);
    const again = await fresh.apply(builtinResources.configMap, child, undefined);
    assert.equal(again.wrote, false, 'the cache is behind: the create stands for the object');
    assert.equal(again.object.metadata!.uid, created.object.metadata!.uid);
    await assert.rejects(
      fresh.apply(builtinResources.configMap, { ...child, data: { a: '2' } }, undefined),
      isConflict,
      'a new intent is sent',
    );
    fresh.observed(builtinResources.configMap, created.object);
    await assert.rejects(fresh.apply(builtinResources.configMap, child, undefined), isConflict, 'reported: no cached object means none');
  });

  it('leaves to the cache an object a cache reported while the create was on its way', async () => {
    const fresh = new Applier(new KubeHttp(cp.adminConfig()));
    const child: V1ConfigMap = { ...desired({ a: '1' }), metadata: { name: 'reported-early', namespace } };
    const creating = fresh.apply(builtinResources.configMap, child, undefined);
    fresh.observed(builtinResources.configMap, child); // the watch event came before the create's answer
    assert.equal((await creating).wrote, true);
    await assert.rejects(fresh.apply(builtinResources.configMap, child, undefined), isConflict, 'no create stands in for it');
  });

  it('remembers an object the server normalized as its own until a cache reports that object deleted', async () => {
    const http = new KubeHttp(cp.adminConfig());
    const fresh = new Applier(http);
    const resource = builtinResources.deployment;
    const deployment = normalizedDeployment('normalized');
    await fresh.apply(resource, deployment, undefined);
    const stored = await http.json<typeof deployment>('GET', objectPath(resource, namespace, 'normalized'));
    assert.equal(stored.spec.template.spec.containers[0]!.resources.requests.cpu, '1', 'the server wrote 1000m as 1');
    assert.equal((await fresh.apply(resource, deployment, stored)).wrote, false, 'unchanged since its own apply');

    const older = { ...stored, metadata: { ...stored.metadata, uid: 'an-older-object-of-that-name' } };
    fresh.observed(resource, older, true);
    assert.equal((await fresh.apply(resource, deployment, stored)).wrote, false, 'another object deleted: still remembered');
    fresh.observed(resource, stored, true);
    assert.equal((await fresh.apply(resource, deployment, stored)).wrote, true, 'deleted: forgotten, so the apply is sent');
  });

  it("forgets what it applied to a child once the manager's cache reports that child deleted by someone else", async () => {
    const manager = new Manager({
      kubeConfig: cp.adminConfig(),
      logger: createLogger({ level: 'silent' }),
      metrics: createMetrics(),
      namespaces: [namespace],
      concurrency: 1,
      leaderElection: false,
      shutdownTimeoutMs: 10_000,
      onLeadershipLost: () => undefined,
    });
    const resource = builtinResources.deployment;
    const cache = manager.cache<ReturnType<typeof normalizedDeployment>>(resource);
    await manager.start();
    try {
      const deployment = normalizedDeployment('deleted-by-someone');
      await manager.writer.apply(resource, deployment, undefined);
      const stored = await eventually('the cache to report the Deployment', async () => cache.get(namespace, 'deleted-by-someone'));
      assert.equal((await manager.writer.apply(resource, deployment, stored)).wrote, false, 'remembered: unchanged since its own apply');

      // As the garbage collector deletes the children of a deleted owner: not through the operator's writer.
      await new KubeHttp(cp.adminConfig()).json('DELETE', objectPath(resource, namespace, 'deleted-by-someone'));
      await eventually('the cache to report the delete', async () => cache.get(namespace, 'deleted-by-someone') === undefined);
      assert.equal((await manager.writer.apply(resource, deployment, stored)).wrote, true, 'forgotten, so the apply is sent');
    } finally {
      await manager.shutdown();
    }
  });

  it('applies a child the cache has not seen, through the 409 when it exists already, and leaves a foreign one alone', async () => {
    const writer = new Writer(new KubeHttp(cp.adminConfig()));
    const ours = (obj: V1ConfigMap) => obj.metadata?.labels?.owner === 'us';
    const mine = (name: string, data: Record<string, string>): V1ConfigMap => ({
      ...desired(data),
      metadata: { name, namespace, labels: { owner: 'us' } },
    });

    const created = await applyChild(writer, builtinResources.configMap, mine('new-child', { a: '1' }), undefined, ours);
    assert.equal(created.foreign, false);
    const stored = await core.readNamespacedConfigMap({ namespace, name: 'new-child' });
    assert.ok(stored.metadata!.managedFields!.some((f) => f.manager === fieldManager && f.operation === 'Apply'));

    const updated = await applyChild(writer, builtinResources.configMap, mine('new-child', { a: '2' }), undefined, ours);
    assert.equal(updated.foreign, false);
    assert.deepEqual((await core.readNamespacedConfigMap({ namespace, name: 'new-child' })).data, { a: '2' });

    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'someone-elses' }, data: { keep: 'me' } } });
    const foreign = await applyChild(writer, builtinResources.configMap, mine('someone-elses', { a: '1' }), undefined, ours);
    assert.deepEqual(foreign, { foreign: true, description: `ConfigMap "${namespace}/someone-elses"` });
    const untouched = await core.readNamespacedConfigMap({ namespace, name: 'someone-elses' });
    assert.deepEqual(untouched.data, { keep: 'me' });
    assert.ok(!untouched.metadata!.managedFields!.some((f) => f.manager === fieldManager));
  });
});
