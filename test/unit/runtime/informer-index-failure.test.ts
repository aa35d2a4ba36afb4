import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { validateCoderControlPlane } from '../../../generated/validators/codercontrolplane.ts';
import { referencedSecrets } from '../../../src/controllers/codercontrolplane/controller.ts';
import { Informer, type KubeObject } from '../../../src/runtime/informer.ts';
import { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { builtinResources } from '../../../src/runtime/resource.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

type Labelled = KubeObject & { metadata: { name: string; namespace: string; labels?: Record<string, string> } };

const items: Labelled[] = [
  { metadata: { name: 'odd', namespace: 'ns', resourceVersion: '5', labels: {} } } as Labelled,
  { metadata: { name: 'fine', namespace: 'ns', resourceVersion: '6', labels: { team: 'a' } } } as Labelled,
];

describe('an index function that throws on one object', () => {
  let server: LocalApiServer;
  let lists = 0;

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (new URL(req.url ?? '/', 'http://x').searchParams.get('watch') === 'true') return; // an open, quiet watch
      lists++;
      res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', items, metadata: { resourceVersion: '7' } }));
    });
  });
  after(() => server.close());

  it('caches and hands on that object anyway, indexes the others, and keeps why it failed', async () => {
    const informer = new Informer<Labelled>(new KubeHttp(server.kubeConfig), builtinResources.configMap, { namespace: 'ns' });
    informer.addIndex('team', (cm) => {
      const team = cm.metadata.labels?.team;
      if (!team) throw new Error('metadata.labels.team is missing');
      return [team];
    });
    const handled: string[] = [];
    informer.addHandlers({ onAdd: (cm) => handled.push(cm.metadata.name) });
    informer.start();
    // Before, the throw failed the list itself: never synced, nothing handled, relisted for ever.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      informer.waitForSync(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not synced within 20 s; lists so far: ${lists}`)), 20_000);
      }),
    ]).finally(() => clearTimeout(timer));
    await informer.stop();
    assert.deepEqual(handled.sort(), ['fine', 'odd']);
    assert.deepEqual(
      informer.list('ns').map((cm) => cm.metadata.name),
      ['odd', 'fine'],
    );
    assert.deepEqual(
      informer.byIndex('team', 'a').map((cm) => cm.metadata.name),
      ['fine'],
    );
    assert.equal(informer.indexFailure('ns', 'odd'), 'index team cannot be computed: metadata.labels.team is missing');
    assert.equal(informer.indexFailure('ns', 'fine'), undefined);
    assert.equal(lists, 1);
  });
});

describe('the CoderControlPlane Secret index', () => {
  it('throws only on a spec that the reconcile reports as SpecValid=False (it fails the schema)', () => {
    // What an older or unvalidated CRD can store: a database without its connectionSecretRef.
    const cp = {
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderControlPlane',
      metadata: { name: 'odd', namespace: 'ns' },
      spec: { database: {} },
    } as unknown as CoderControlPlane;
    assert.throws(() => referencedSecrets(cp));
    assert.ok(
      validateCoderControlPlane(cp).some((e) => e.path.startsWith('spec.database')),
      JSON.stringify(validateCoderControlPlane(cp)),
    );
  });
});
