// The informer against a real API server: paginated lists, watch events, and no event lost when the
// API server restarts under an open watch.
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { after, before, describe, it } from 'node:test';
import { Informer } from '../../src/runtime/informer.ts';
import { KubeHttp } from '../../src/runtime/kube-http.ts';
import { builtinResources } from '../../src/runtime/resource.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
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
});
