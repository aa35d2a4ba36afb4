// The Event recorder against a real API server, under the operator's generated RBAC only.
import { CoreV1Api, EventsV1Api, KubeConfig, type EventsV1Event, type V1ConfigMap } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { KubeHttp } from '../../src/runtime/kube-http.ts';
import { EventRecorder, type EventTarget } from '../../src/runtime/events.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';

const namespace = 'events-test';
const controller = 'coder-k8s.coder.com/codercontrolplane';

function kubeConfigFrom(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

describe('EventRecorder on a real API server', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let events: EventsV1Api;
  let recorder: EventRecorder;
  const logged: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({
      write(chunk: Buffer, _e, done) {
        logged.push(chunk.toString());
        done();
      },
    }),
  });

  before(async () => {
    cp = await startControlPlane();
    await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', 'coder-system']);
    await kubectlOk(cp.adminKubeconfigPath, ['apply', '-f', 'config/crd/bases/', '-f', 'config/rbac/']);
    const operator = kubeConfigFrom(await cp.operatorKubeconfig('coder-system', 'coder-k8s'));
    recorder = new EventRecorder(new KubeHttp(operator), { controller, instance: 'coder-k8s-0', logger });
    core = cp.adminConfig().makeApiClient(CoreV1Api);
    events = cp.adminConfig().makeApiClient(EventsV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
  });
  after(() => cp?.stop());

  async function aTarget(name: string): Promise<EventTarget> {
    const cm: V1ConfigMap = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name } } });
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name,
      namespace,
      uid: cm.metadata!.uid!,
      resourceVersion: cm.metadata!.resourceVersion!,
    };
  }

  async function eventsAbout(target: EventTarget): Promise<EventsV1Event[]> {
    await recorder.flush();
    const list = await events.listNamespacedEvent({ namespace });
    return list.items.filter((event) => event.regarding?.uid === target.uid).sort((a, b) => (a.note ?? '').localeCompare(b.note ?? ''));
  }

  it('folds three identical records into one Event whose series counts 3', async () => {
    const target = await aTarget('three-times');
    for (let i = 0; i < 3; i++) {
      await recorder.record(target, 'Warning', 'SecretNotFound', 'Reconcile', 'Secret "coder-db-app" not found');
    }
    const found = await eventsAbout(target);
    assert.equal(found.length, 1, JSON.stringify(found, null, 2));
    const [event] = found;
    assert.equal(event!.series?.count, 3);
    assert.ok(event!.series?.lastObservedTime, 'series.lastObservedTime is set');
    assert.match(event!.metadata!.name!, /^three-times\.[0-9a-f]{16}$/);
    assert.equal(event!.type, 'Warning');
    assert.equal(event!.reason, 'SecretNotFound');
    assert.equal(event!.action, 'Reconcile');
    assert.equal(event!.reportingController, controller);
    assert.equal(event!.reportingInstance, 'coder-k8s-0');
    assert.deepEqual(
      { kind: event!.regarding?.kind, name: event!.regarding?.name, namespace: event!.regarding?.namespace },
      { kind: 'ConfigMap', name: 'three-times', namespace },
    );
  });

  it('writes a second Event when the note differs, and leaves a single Event without a series', async () => {
    const target = await aTarget('two-notes');
    await recorder.record(target, 'Normal', 'Progressing', 'Reconcile', 'a: waiting for the Deployment');
    await recorder.record(target, 'Normal', 'Progressing', 'Reconcile', 'b: waiting for the Service');
    const found = await eventsAbout(target);
    assert.deepEqual(
      found.map((event) => event.note),
      ['a: waiting for the Deployment', 'b: waiting for the Service'],
    );
    assert.deepEqual(
      found.map((event) => event.series),
      [undefined, undefined],
    );
  });

  it('counts concurrent identical records in one Event', async () => {
    const target = await aTarget('concurrent');
    await Promise.all([1, 2, 3, 4].map(() => recorder.record(target, 'Normal', 'Ready', 'Reconcile', 'ready')));
    const found = await eventsAbout(target);
    assert.equal(found.length, 1, JSON.stringify(found, null, 2));
    assert.equal(found[0]!.series?.count, 4);
  });

  it('scrubs secrets from the note and cuts it to 1024 bytes', async () => {
    const target = await aTarget('long-note');
    const note = `cannot connect to postgres://coder:hunter2@db:5432/coder: ${'é'.repeat(1000)}`;
    await recorder.record(target, 'Warning', 'DatabaseUnreachable', 'Reconcile', note);
    const [event] = await eventsAbout(target);
    assert.ok(event, 'no Event');
    assert.ok(!event.note!.includes('hunter2'), event.note);
    assert.ok(event.note!.startsWith('cannot connect to postgres://REDACTED@db:5432/coder: éé'), event.note);
    assert.ok(Buffer.byteLength(event.note!) <= 1024 && Buffer.byteLength(event.note!) >= 1023);
  });

  it('starts a new Event when the one it would update is gone', async () => {
    const target = await aTarget('deleted');
    await recorder.record(target, 'Normal', 'Created', 'Reconcile', 'created');
    const [first] = await eventsAbout(target);
    await events.deleteNamespacedEvent({ namespace, name: first!.metadata!.name! });
    await recorder.record(target, 'Normal', 'Created', 'Reconcile', 'created');
    const found = await eventsAbout(target);
    assert.equal(found.length, 1);
    assert.notEqual(found[0]!.metadata!.name, first!.metadata!.name);
    assert.equal(found[0]!.series, undefined);
  });

  it('never throws when it may not write Events: it logs and drops', async () => {
    const target = await aTarget('forbidden');
    const nobody = kubeConfigFrom(await cp.operatorKubeconfig(namespace, 'nobody'));
    const denied = new EventRecorder(new KubeHttp(nobody), { controller, instance: 'coder-k8s-0', logger });
    logged.length = 0;
    await denied.record(target, 'Warning', 'Failed', 'Reconcile', 'token AbCdEfGhIj-AbCdEfGhIjKlMnOpQrStUv rejected');
    await denied.flush();
    assert.deepEqual(await eventsAbout(target), []);
    const lines = logged.map((line) => JSON.parse(line) as { msg: string; err?: { message: string } });
    assert.ok(
      lines.some((line) => line.msg === 'dropped an Event that could not be written'),
      logged.join(''),
    );
    assert.ok(!logged.join('').includes('AbCdEfGhIj-AbCdEfGhIjKlMnOpQrStUv'));
  });
});
