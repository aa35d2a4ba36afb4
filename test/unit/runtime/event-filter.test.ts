import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedBeyondStatus, isKubernetesAnnotation, primaryChanged } from '../../../src/runtime/event-filter.ts';
import type { KubeObject } from '../../../src/runtime/informer.ts';

type Obj = KubeObject & { spec?: unknown; status?: unknown };

const base: Obj = {
  apiVersion: 'coder.com/v1alpha1',
  kind: 'CoderControlPlane',
  metadata: { name: 'a', namespace: 'n', resourceVersion: '1', generation: 1, labels: { app: 'x' }, finalizers: [] },
  spec: { replicas: 1 },
  status: { phase: 'Pending' },
};
const with_ = (change: (o: Obj) => void): Obj => {
  const copy = structuredClone(base);
  copy.metadata!.resourceVersion = '2';
  change(copy);
  return copy;
};

describe('event filters', () => {
  const own = primaryChanged<Obj>('example.com/cleanup');

  it('ignore an object’s own status and finalizer writes', () => {
    assert.equal(
      own(
        base,
        with_((o) => (o.status = { phase: 'Ready' })),
      ),
      false,
    );
    const finalized = with_((o) => (o.metadata!.finalizers = ['example.com/cleanup']));
    assert.equal(own(base, finalized), false);
    assert.equal(
      own(
        base,
        with_(() => undefined),
      ),
      false,
    );
  });

  it('pass spec, label, annotation and deletion changes, and the loss of the finalizer', () => {
    assert.equal(
      own(
        base,
        with_((o) => ((o.spec = { replicas: 2 }), (o.metadata!.generation = 2))),
      ),
      true,
    );
    assert.equal(
      own(
        base,
        with_((o) => (o.metadata!.labels = { app: 'y' })),
      ),
      true,
    );
    assert.equal(
      own(
        base,
        with_((o) => (o.metadata!.annotations = { restart: 'now' })),
      ),
      true,
    );
    assert.equal(
      own(
        base,
        with_((o) => (o.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')),
      ),
      true,
    );
    const finalized = with_((o) => (o.metadata!.finalizers = ['example.com/cleanup']));
    assert.equal(
      own(
        finalized,
        with_(() => undefined),
      ),
      true,
    );
    assert.equal(
      own(
        base,
        with_((o) => (o.metadata!.finalizers = ['someone.else/hold'])),
      ),
      true,
    );
  });

  it('see a child’s drift, not its status nor Kubernetes’ bookkeeping annotations', () => {
    const drift = (o: Obj, n: Obj) => changedBeyondStatus(o, n, isKubernetesAnnotation);
    assert.equal(
      drift(
        base,
        with_((o) => (o.status = { readyReplicas: 1 })),
      ),
      false,
    );
    assert.equal(
      drift(
        base,
        with_((o) => (o.metadata!.annotations = { 'deployment.kubernetes.io/revision': '1' })),
      ),
      false,
    );
    assert.equal(
      drift(
        base,
        with_((o) => (o.metadata!.annotations = { 'example.com/note': 'x' })),
      ),
      true,
    );
    assert.equal(
      drift(
        base,
        with_((o) => (o.spec = { replicas: 3 })),
      ),
      true,
    );
    assert.equal(
      drift(
        base,
        with_((o) => (o.metadata!.ownerReferences = [])),
      ),
      true,
    );
    assert.equal(
      changedBeyondStatus(
        base,
        with_((o) => (o.metadata!.annotations = { 'deployment.kubernetes.io/revision': '1' })),
      ),
      true,
    );
  });
});
