import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { Writer } from '../../../src/runtime/writer.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

interface Stored {
  metadata: { name: string; namespace: string; resourceVersion: string };
  status: Record<string, unknown>;
}

const path = '/apis/coder.com/v1alpha1/namespaces/ns/codercontrolplanes/cp';

/** One object with optimistic concurrency as the API server does it: a PATCH carrying another resourceVersion is a 409. */
function storeServer() {
  const state = {
    object: undefined as unknown as Stored,
    requests: [] as string[],
    /** How many of the next status patches are answered 409 although their resourceVersion matches (another writer won). */
    forcedConflicts: 0,
  };
  const write = (res: ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const conflict = (res: ServerResponse) =>
    write(res, 409, { kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' });
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = text ? (JSON.parse(text) as { metadata?: { resourceVersion?: string }; status?: Record<string, unknown> }) : {};
      state.requests.push(
        `${req.method} ${req.url === path ? 'object' : 'status'}${body.metadata ? ` rv=${body.metadata.resourceVersion}` : ''}`,
      );
      if (req.method === 'GET' && req.url === path) return write(res, 200, state.object);
      if (req.method === 'PATCH' && req.url === `${path}/status`) {
        if (body.metadata?.resourceVersion !== state.object.metadata.resourceVersion) return conflict(res);
        if (state.forcedConflicts > 0) {
          state.forcedConflicts--;
          bumpElsewhere(state.object);
          return conflict(res);
        }
        state.object = {
          metadata: { ...state.object.metadata, resourceVersion: String(Number(state.object.metadata.resourceVersion) + 1) },
          // As a merge patch: null removes the field.
          status: Object.fromEntries(Object.entries({ ...state.object.status, ...body.status }).filter(([, v]) => v !== null)),
        };
        return write(res, 200, state.object);
      }
      write(res, 404, { kind: 'Status', code: 404, reason: 'NotFound' });
    });
  };
  return { state, handler };
}

/** Another writer's change, which raises the resourceVersion. */
function bumpElsewhere(object: Stored) {
  object.metadata.resourceVersion = String(Number(object.metadata.resourceVersion) + 1);
  object.status = { ...object.status, other: `${object.metadata.resourceVersion}` };
}

describe('Writer.writeStatus on conflict', () => {
  const { state, handler } = storeServer();
  let server: LocalApiServer;
  let writer: Writer;

  before(async () => {
    server = await startLocalApiServer(handler);
  });
  after(() => server.close());
  beforeEach(() => {
    // A writer per test: each starts the object again at resourceVersion 1, which a real one never does.
    writer = new Writer(new KubeHttp(server.kubeConfig));
    state.object = { metadata: { name: 'cp', namespace: 'ns', resourceVersion: '1' }, status: { phase: 'Pending' } };
    state.requests = [];
    state.forcedConflicts = 0;
  });

  it('re-reads the object and applies the same change when the cached copy is stale', async () => {
    const cached = structuredClone(state.object);
    bumpElsewhere(state.object); // the cache is one write behind
    const { wrote } = await writer.writeStatus(coderControlPlaneResource, cached, { phase: 'Ready' });
    assert.equal(wrote, true);
    assert.deepEqual(state.requests, ['PATCH status rv=1', 'GET object', 'PATCH status rv=2']);
    // The change lands and the other writer's field survives.
    assert.deepEqual(state.object.status, { phase: 'Ready', other: '2' });
    // A reconcile starting from the version the first attempt carried goes on from the write.
    assert.equal(writer.current(coderControlPlaneResource, cached).metadata.resourceVersion, '3');
  });

  it('sends nothing more when the fresh object already holds the change', async () => {
    const cached = structuredClone(state.object);
    state.object = { metadata: { ...state.object.metadata, resourceVersion: '2' }, status: { phase: 'Ready' } };
    const { wrote } = await writer.writeStatus(coderControlPlaneResource, cached, { phase: 'Ready' });
    assert.equal(wrote, false);
    assert.deepEqual(state.requests, ['PATCH status rv=1', 'GET object']);
  });

  it('goes on from its own last status write while the cache has not caught up with it', async () => {
    const cached = structuredClone(state.object);
    assert.equal((await writer.writeStatus(coderControlPlaneResource, cached, { phase: 'Pending', message: 'waiting' })).wrote, true);
    // The cache still shows version 1: the next write goes from version 2, which the writer made.
    assert.equal((await writer.writeStatus(coderControlPlaneResource, cached, { phase: 'Ready' })).wrote, true);
    assert.deepEqual(state.requests, ['PATCH status rv=1', 'PATCH status rv=2']);
    assert.deepEqual(state.object.status, { phase: 'Ready' });
    // A reconcile starting from the lagging cache sees what was written last.
    assert.deepEqual(writer.current(coderControlPlaneResource, cached), {
      metadata: { name: 'cp', namespace: 'ns', resourceVersion: '3' },
      status: { phase: 'Ready' },
    });
    // Nothing to send when what it wrote last is what is wanted.
    assert.equal((await writer.writeStatus(coderControlPlaneResource, cached, { phase: 'Ready' })).wrote, false);
    // Once the cache shows another version, that is what counts.
    bumpElsewhere(state.object);
    const fresh = structuredClone(state.object);
    assert.equal((await writer.writeStatus(coderControlPlaneResource, fresh, { phase: 'Ready', message: 'done' })).wrote, true);
    assert.deepEqual(state.requests.slice(2), ['PATCH status rv=4']);
  });

  it('throws the conflict at once with onConflict fail, reading nothing', async () => {
    const cached = structuredClone(state.object);
    bumpElsewhere(state.object);
    await assert.rejects(
      writer.writeStatus(coderControlPlaneResource, cached, { phase: 'Ready' }, { onConflict: 'fail' }),
      (err: unknown) => (err as { code?: number }).code === 409,
    );
    assert.deepEqual(state.requests, ['PATCH status rv=1']);
  });

  it('gives the conflict to the caller after a bounded number of attempts', async () => {
    state.forcedConflicts = 100;
    await assert.rejects(
      writer.writeStatus(coderControlPlaneResource, structuredClone(state.object), { phase: 'Ready' }),
      (err: unknown) => (err as { code?: number }).code === 409,
    );
    assert.equal(state.requests.filter((r) => r.startsWith('PATCH')).length, 4);
    assert.equal(state.object.status.phase, 'Pending');
  });
});

describe('Writer.removeFinalizer', () => {
  let server: LocalApiServer;

  before(async () => {
    server = await startLocalApiServer((_req, res) => {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' }));
    });
  });
  after(() => server.close());

  it('counts an object already gone (its last finalizer removed by an earlier write) as done', async () => {
    const writer = new Writer(new KubeHttp(server.kubeConfig));
    const cached = { metadata: { name: 'cp', namespace: 'ns', resourceVersion: '7', finalizers: ['coder.com/x'] } };
    assert.equal(await writer.removeFinalizer(coderControlPlaneResource, cached, 'coder.com/x'), false);
  });
});

describe('Writer.deleteExactly', () => {
  let server: LocalApiServer;
  const requests: { method: string; body: unknown }[] = [];
  /** The uid of the object the server holds under that name. */
  let storedUid = 'uid-1';

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const body = text ? (JSON.parse(text) as { preconditions?: { uid?: string }; metadata?: object }) : {};
        requests.push({ method: req.method!, body });
        res.setHeader('Content-Type', 'application/json');
        if (req.method === 'DELETE' && body.preconditions?.uid !== storedUid) {
          res.writeHead(409);
          return res.end(JSON.stringify({ kind: 'Status', code: 409, reason: 'Conflict' }));
        }
        res.writeHead(200);
        res.end(JSON.stringify({ ...body, metadata: { ...body.metadata, uid: storedUid, resourceVersion: '1' } }));
      });
    });
  });
  after(() => server.close());
  beforeEach(() => (requests.length = 0));

  const cp = { apiVersion: 'coder.com/v1alpha1', kind: 'CoderControlPlane', metadata: { name: 'cp', namespace: 'ns' } };

  it('deletes by uid and leaves a newer object of the same name alone', async () => {
    const writer = new Writer(new KubeHttp(server.kubeConfig));
    assert.equal(await writer.deleteExactly(coderControlPlaneResource, { metadata: { ...cp.metadata, uid: 'uid-1' } }), true);
    storedUid = 'uid-2';
    assert.equal(await writer.deleteExactly(coderControlPlaneResource, { metadata: { ...cp.metadata, uid: 'uid-1' } }), false);
    assert.deepEqual(
      requests.map((r) => (r.body as { preconditions?: object }).preconditions),
      [{ uid: 'uid-1' }, { uid: 'uid-1' }],
    );
  });

  it('forgets a create it made, so that applying the object again after the delete creates it again', async () => {
    const writer = new Writer(new KubeHttp(server.kubeConfig));
    const created = await writer.apply(coderControlPlaneResource, cp, undefined);
    assert.equal(created.wrote, true);
    assert.equal((await writer.apply(coderControlPlaneResource, cp, undefined)).wrote, false, 'an unseen create stands for itself');
    await writer.deleteExactly(coderControlPlaneResource, created.object);
    assert.equal((await writer.apply(coderControlPlaneResource, cp, undefined)).wrote, true);
  });
});
