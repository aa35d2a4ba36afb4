import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coderProvisionerResource } from '../../../generated/clients/coderprovisioner.ts';
import { OwnWrites } from '../../../src/runtime/own-writes.ts';

const at = (resourceVersion: string, status: Record<string, unknown> = {}, finalizers: string[] = []) => ({
  metadata: { name: 'p', namespace: 'ns', resourceVersion, finalizers },
  status,
});

describe('OwnWrites', () => {
  it('gives the object as last written while the cache shows any version seen on the way to that write', () => {
    const writes = new OwnWrites();
    // A reconcile read version 1, added its finalizer (2), then wrote its status (3).
    writes.wrote(coderProvisionerResource, '1', at('2', {}, ['f']));
    writes.wrote(coderProvisionerResource, '2', {
      ...at('3', { keyID: 'k' }, ['f']),
      metadata: { ...at('3').metadata, managedFields: [] },
    });
    for (const lagging of ['1', '2']) {
      const current = writes.current(coderProvisionerResource, at(lagging));
      assert.equal(current.metadata.resourceVersion, '3');
      assert.deepEqual(current.status, { keyID: 'k' });
      assert.equal('managedFields' in current.metadata, false);
    }
  });

  it('trusts the cache once it shows the write, or a version the writer never saw (a newer one)', () => {
    const writes = new OwnWrites();
    writes.wrote(coderProvisionerResource, '1', at('2', { keyID: 'k' }));
    const caughtUp = at('2', { keyID: 'k' });
    assert.equal(writes.current(coderProvisionerResource, caughtUp), caughtUp);
    const newer = at('5', { keyID: 'other' });
    assert.equal(writes.current(coderProvisionerResource, newer), newer);
  });

  it('forgets a write once a cache reports it or a newer version, not while it reports an older one', () => {
    for (const reported of ['3', '4']) {
      const writes = new OwnWrites();
      writes.wrote(coderProvisionerResource, ['1', '2'], at('3', { keyID: 'k' }));
      writes.observed(coderProvisionerResource, at('2'));
      assert.equal(writes.current(coderProvisionerResource, at('1')).metadata.resourceVersion, '3', 'still behind');
      writes.observed(coderProvisionerResource, at(reported));
      // No cache goes back to version 1; a lagging object shows that the write is no longer held.
      const lagging = at('1');
      assert.equal(writes.current(coderProvisionerResource, lagging), lagging);
    }
  });

  it('forgets a write after 30 s: a cache that far behind meets a 409 instead', () => {
    let now = 0;
    const writes = new OwnWrites(() => now);
    writes.wrote(coderProvisionerResource, '1', at('2', { keyID: 'k' }));
    now = 30_000;
    const lagging = at('1');
    assert.equal(writes.current(coderProvisionerResource, lagging), lagging);
  });

  it('keeps objects of another name or resource apart', () => {
    const writes = new OwnWrites();
    writes.wrote(coderProvisionerResource, '1', at('2', { keyID: 'k' }));
    const other = { ...at('1'), metadata: { ...at('1').metadata, name: 'q' } };
    assert.equal(writes.current(coderProvisionerResource, other), other);
  });
});

describe('OwnWrites after a write retried on conflict', () => {
  it('counts every version an attempt carried as behind the write', () => {
    const writes = new OwnWrites();
    // The first attempt carried version 1 and met 409 (another writer made 2); the retry over 2 made 3.
    writes.wrote(coderProvisionerResource, ['1', '2'], at('3', { keyID: 'k' }));
    for (const lagging of ['1', '2']) assert.equal(writes.current(coderProvisionerResource, at(lagging)).metadata.resourceVersion, '3');
  });
});
