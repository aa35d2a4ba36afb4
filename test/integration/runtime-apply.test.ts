// Server-side apply of owned objects against a real API server: a write only when the object does not
// already hold the intent, drift by others repaired, fields we stop setting removed.
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Applier, fieldManager } from '../../src/runtime/apply.ts';
import { KubeHttp } from '../../src/runtime/kube-http.ts';
import { builtinResources } from '../../src/runtime/resource.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';

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
});
