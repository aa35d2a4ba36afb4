// The informer against a real API server: paginated lists, watch events, no event lost when the API server
// restarts under an open watch, metadata-only lists and watches, and a kind that is served only later.
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { after, before, describe, it } from 'node:test';
import { Informer, type KubeObject } from '../../src/runtime/informer.ts';
import { KubeHttp } from '../../src/runtime/kube-http.ts';
import { builtinResources } from '../../src/runtime/resource.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';
import { eventually } from '../harness/wait.ts';

const namespace = 'informer-test';

describe('informer on a real API server', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let informer: Informer<V1ConfigMap & { metadata: NonNullable<V1ConfigMap['metadata']> }>;
  const events: string[] = [];

  const configMap = (name: string, value = '1') => ({ metadata: { name, namespace, labels: { test: 'informer' } }, data: { value } });
  const truth = async () =>
    (await core.listNamespacedConfigMap({ namespace, labelSelector: 'test=informer' })).items
      .map((c) => `${c.metadata!.name}=${c.data?.value}`)
      .sort();
  const cached = () =>
    informer
      .list(namespace)
      .map((c) => `${c.metadata.name}=${c.data?.value}`)
      .sort();

  before(async () => {
    cp = await startControlPlane();
    core = cp.adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    for (let i = 0; i < 12; i++) await core.createNamespacedConfigMap({ namespace, body: configMap(`pre-${i}`) });
    informer = new Informer(new KubeHttp(cp.adminConfig()), builtinResources.configMap, {
      namespace,
      labelSelector: 'test=informer',
      pageSize: 5,
      staleAfterMs: 1_000,
      backoffMs: { initial: 200, max: 1_000 },
    });
    informer.addIndex('value', (c) => [c.data?.value ?? '']);
    informer.addHandlers({
      onAdd: (c) => events.push(`add ${c.metadata.name}`),
      onUpdate: (_, c) => events.push(`update ${c.metadata.name}`),
      onDelete: (c) => events.push(`delete ${c.metadata.name}`),
    });
    informer.start();
    await informer.waitForSync();
  });
  after(async () => {
    await informer?.stop();
    await cp?.stop();
  });

  it('lists every page into the cache without managedFields', () => {
    assert.equal(informer.list().length, 12);
    assert.ok(informer.list().every((c) => c.metadata.managedFields === undefined && c.kind === 'ConfigMap'));
    assert.equal(informer.byIndex('value', '1').length, 12);
    assert.equal(events.filter((e) => e.startsWith('add pre-')).length, 12);
  });

  it('follows creates, updates and deletes, and keeps its index current', async () => {
    await core.createNamespacedConfigMap({ namespace, body: configMap('live') });
    await core.replaceNamespacedConfigMap({ namespace, name: 'live', body: configMap('live', '2') });
    await core.deleteNamespacedConfigMap({ namespace, name: 'pre-0' });
    await eventually('the cache to match the API server', async () => JSON.stringify(cached()) === JSON.stringify(await truth()));
    assert.deepEqual(
      informer.byIndex('value', '2').map((c) => c.metadata.name),
      ['live'],
    );
    assert.ok(events.includes('add live') && events.includes('update live') && events.includes('delete pre-0'));
  });

  it('misses no change made while the API server restarts under its watch, and reports staleness meanwhile', async () => {
    // Staleness is asserted while the server is away, not raced against how fast it comes back: a new
    // kube-apiserver answers watches about a second after the old one exits, which is the stale threshold.
    await cp.restartApiServer({
      whileDown: () => eventually('the informer to notice the API server is gone', async () => informer.isStale(), { timeoutMs: 30_000 }),
    });
    // Changes right after the restart, before the informer has reconnected.
    await core.createNamespacedConfigMap({ namespace, body: configMap('after-restart') });
    await core.replaceNamespacedConfigMap({ namespace, name: 'pre-1', body: configMap('pre-1', '3') });
    await core.deleteNamespacedConfigMap({ namespace, name: 'pre-2' });
    await eventually(
      'the cache to match the API server after the restart',
      async () => JSON.stringify(cached()) === JSON.stringify(await truth()),
      { timeoutMs: 60_000 },
    );
    assert.ok(events.includes('add after-restart'), 'create seen');
    assert.ok(events.includes('update pre-1'), 'update seen');
    assert.ok(events.includes('delete pre-2'), 'delete seen');
    await eventually('the informer to be fresh again', async () => !informer.isStale());
  });

  it('relists after 410 Gone when the version it watches from was compacted away', async () => {
    const logLines: string[] = [];
    const logger = pino(
      { level: 'info' },
      {
        write: (line: string) => {
          logLines.push(line);
        },
      },
    );
    const watched = new Informer<V1ConfigMap>(new KubeHttp(cp.adminConfig()), builtinResources.configMap, {
      namespace,
      labelSelector: 'test=informer',
      logger,
      backoffMs: { initial: 200, max: 1_000 },
    });
    watched.start();
    await watched.waitForSync();
    try {
      // Move the store's revision on with writes the informer does not watch, then compact it all away.
      for (let i = 0; i < 5; i++) await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `other-${i}` } } });
      const status = (await (await fetch(`${cp.etcdUrl}/v3/maintenance/status`, { method: 'POST', body: '{}' })).json()) as {
        header: { revision: string };
      };
      const compacted = await fetch(`${cp.etcdUrl}/v3/kv/compaction`, {
        method: 'POST',
        body: JSON.stringify({ revision: status.header.revision, physical: true }),
      });
      assert.equal(compacted.status, 200);
      await cp.restartApiServer();
      await core.createNamespacedConfigMap({ namespace, body: configMap('after-compaction') });
      await eventually('a relist after 410 Gone', async () => logLines.some((l) => l.includes('410 Gone')), { timeoutMs: 60_000 });
      await eventually(
        'the relisted cache to match the API server',
        async () =>
          JSON.stringify(
            watched
              .list(namespace)
              .map((c) => `${c.metadata!.name}=${c.data?.value}`)
              .sort(),
          ) === JSON.stringify(await truth()),
        { timeoutMs: 30_000 },
      );
    } finally {
      await watched.stop();
    }
  });

  it('lists and watches metadata only when asked: changes arrive as new versions, the data never', async () => {
    const seen: string[] = [];
    const metadata = new Informer<V1ConfigMap>(new KubeHttp(cp.adminConfig()), builtinResources.configMap, {
      namespace,
      labelSelector: 'test=metadata',
      metadataOnly: true,
      backoffMs: { initial: 200, max: 1_000 },
    });
    metadata.addHandlers({
      onAdd: (c) => seen.push(`add ${c.metadata!.name}`),
      onUpdate: (_, c) => seen.push(`update ${c.metadata!.name}`),
      onDelete: (c) => seen.push(`delete ${c.metadata!.name}`),
    });
    const body = (value: string) => ({ metadata: { name: 'meta', namespace, labels: { test: 'metadata' } }, data: { value } });
    metadata.start();
    try {
      // Nothing matches yet: the API server answers an empty PartialObjectMetadataList with `items: null`.
      await metadata.waitForSync();
      await core.createNamespacedConfigMap({ namespace, body: body('listed') });
      await eventually('the create as an add', async () => seen.includes('add meta'));
      await core.replaceNamespacedConfigMap({ namespace, name: 'meta', body: body('changed') });
      await eventually('the change as an update', async () => seen.includes('update meta'));
      const cachedObject = metadata.get(namespace, 'meta') as unknown as Record<string, unknown>;
      assert.equal(cachedObject.kind, 'PartialObjectMetadata');
      assert.equal(cachedObject.data, undefined, 'no data cached');
      await core.deleteNamespacedConfigMap({ namespace, name: 'meta' });
      await eventually('the delete', async () => seen.includes('delete meta'));
      assert.deepEqual(seen, ['add meta', 'update meta', 'delete meta']);
    } finally {
      await metadata.stop();
    }
  });

  it('counts a kind not served yet as empty and synced, and watches it once its CRD is installed', async () => {
    const widgets = {
      group: 'example.com',
      version: 'v1',
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      namespaced: true,
    };
    const seen: string[] = [];
    const optional = new Informer<KubeObject>(new KubeHttp(cp.adminConfig()), widgets, {
      namespace,
      servedOptionally: true,
      staleAfterMs: 500,
      backoffMs: { initial: 200, max: 1_000 },
    });
    optional.addHandlers({ onAdd: (w) => seen.push(`add ${w.metadata!.name}`), onDelete: (w) => seen.push(`delete ${w.metadata!.name}`) });
    optional.start();
    try {
      await optional.waitForSync();
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(optional.isStale(), false, 'a kind not served is not a stale cache');
      assert.deepEqual(optional.list(), []);
      await kubectlOk(cp.adminKubeconfigPath, ['apply', '-f', '-'], widgetCrd);
      await waitForCrdsEstablished(cp.adminKubeconfigPath, ['widgets.example.com']);
      await kubectlOk(
        cp.adminKubeconfigPath,
        ['apply', '-f', '-'],
        `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"${namespace}"}}`,
      );
      await eventually('the widget made after the CRD was installed', async () => seen.includes('add w1'));
      await kubectlOk(cp.adminKubeconfigPath, ['delete', 'crd', 'widgets.example.com']);
      await eventually('the widget gone with its CRD', async () => seen.includes('delete w1'), { timeoutMs: 60_000 });
      assert.equal(optional.isStale(), false);
    } finally {
      await optional.stop();
    }
  });
});

const widgetCrd = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
});
