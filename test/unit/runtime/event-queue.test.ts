import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Controller } from '../../../src/runtime/controller.ts';
import { EventRecorder, type EventDropReason, type EventTarget } from '../../../src/runtime/events.ts';
import { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { eventually } from '../../harness/wait.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

const target: EventTarget = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'ns', uid: 'uid-1' };
const logger = createLogger({ level: 'silent' });

describe('EventRecorder against an events endpoint that never answers', () => {
  let server: LocalApiServer;
  const hung: { req: IncomingMessage; res: ServerResponse }[] = [];

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      hung.push({ req, res });
    });
  });
  after(async () => {
    for (const { res } of hung) res.destroy();
    await server.close();
  });

  it('does not delay the reconcile that records an Event', async () => {
    const recorder = new EventRecorder(new KubeHttp(server.kubeConfig), { controller: 'test', instance: 'test-0', logger });
    const finished: string[] = [];
    const controller = new Controller(
      'hung-events',
      async (request) => {
        await recorder.record(target, 'Warning', 'Broken', 'Reconcile', `about ${request.name}`);
        finished.push(request.name);
      },
      { concurrency: 1, logger },
    );
    controller.start();
    controller.queue.add('ns/first');
    controller.queue.add('ns/second');
    await eventually('both reconciles to finish', async () => finished.length === 2, { timeoutMs: 20_000 });
    // The first write is still waiting for its answer: the reconciles did not wait for it.
    await eventually('the Event write to reach the server', async () => hung.length > 0);
    assert.ok(hung.every(({ res }) => !res.writableEnded));
    await controller.stop(1_000);
  });

  it('gives up a write at its deadline, and drops (counting) what does not fit in the queue', async () => {
    const drops: EventDropReason[] = [];
    const recorder = new EventRecorder(new KubeHttp(server.kubeConfig), {
      controller: 'test',
      instance: 'test-0',
      logger,
      queueSize: 2,
      writeTimeoutMs: 200,
      onDropped: (reason) => drops.push(reason),
    });
    for (let i = 0; i < 5; i++) await recorder.record({ ...target, uid: `uid-${i}` }, 'Normal', 'Seen', 'Reconcile', `note ${i}`);
    // One is being written, two wait, two did not fit.
    assert.deepEqual(drops, ['queue_full', 'queue_full']);
    await eventually('every queued Event to be given up', async () => drops.length === 5, { timeoutMs: 60_000 });
    assert.deepEqual(drops.slice(2), ['write_failed', 'write_failed', 'write_failed']);
    await recorder.flush();
  });
});
