import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CoderAIProvider } from '../../../../../generated/types/coderaiprovider.ts';
import { CoderIDClaims, coderNameKey } from '../../../../../src/controllers/shared/coder-object/coder-id-claims.ts';
import type { Cache } from '../../../../../src/runtime/cache.ts';
import type { IndexFunc } from '../../../../../src/runtime/informer.ts';
import { aProvider } from '../../../../fixtures/coderaiprovider.ts';

/** A cache whose objects the test adds and removes, as an informer would. */
function liveCache() {
  const objects = new Map<string, CoderAIProvider>();
  const indexes = new Map<string, IndexFunc<CoderAIProvider>>();
  const key = (ns: string | undefined, name: string | undefined) => `${ns}/${name}`;
  const cache = {
    get: (ns: string | undefined, name: string) => objects.get(key(ns, name)),
    list: () => [...objects.values()],
    byIndex: (index: string, value: string) => [...objects.values()].filter((o) => indexes.get(index)!(o).includes(value)),
    addIndex: (index: string, fn: IndexFunc<CoderAIProvider>) => void indexes.set(index, fn),
  } as unknown as Cache<CoderAIProvider>;
  const put = (o: CoderAIProvider) => (objects.set(key(o.metadata.namespace, o.metadata.name), o), o);
  const remove = (o: CoderAIProvider) => objects.delete(key(o.metadata.namespace, o.metadata.name));
  return { cache, put, remove };
}

const provider = (namespace: string, name: string, createdAt: string, coderID?: string, uid = `uid-${namespace}-${name}`) => {
  const p = aProvider(name).inNamespace(namespace).withSpec({ type: 'openai', providerName: 'corp', adoptExisting: true }).build();
  Object.assign(p.metadata, { uid, creationTimestamp: createdAt });
  if (coderID) p.status = { coderID };
  return p;
};

const id = '9d7a1c6e-3b1f-4a52-9c2e-5e0b7d1f2a30';
const nameKey = coderNameKey('deployment-1', { metadata: { namespace: 'a', name: 'coder' } }, 'corp');
const who = (o: CoderAIProvider | undefined) => (o ? `${o.metadata.namespace}/${o.metadata.name}` : 'none');

describe('CoderIDClaims: who manages an object in Coder', () => {
  it('keeps a Coder id that an object of any namespace records in status from every other object', () => {
    const { cache, put } = liveCache();
    const claims = new CoderIDClaims(cache);
    put(provider('a', 'corp', '2026-01-01T00:00:00Z', id));
    const newer = put(provider('b', 'takeover', '2026-02-01T00:00:00Z'));
    const older = put(provider('c', 'early', '2025-01-01T00:00:00Z'));
    assert.equal(who(claims.claim(newer, id, nameKey, undefined)), 'a/corp');
    assert.equal(who(claims.claim(older, id, nameKey, undefined)), 'a/corp', 'an older object that does not record the id gets none');
  });

  it('lets one of two reconciles claim an id that no status shows yet, and refuses the other', () => {
    const { cache, put } = liveCache();
    const claims = new CoderIDClaims(cache);
    const first = put(provider('a', 'first', '2026-02-01T00:00:00Z'));
    const second = put(provider('b', 'second', '2026-01-01T00:00:00Z'));
    assert.equal(claims.claim(first, id, nameKey, undefined), undefined);
    assert.equal(who(claims.claim(second, id, nameKey, undefined)), 'a/first');
    assert.equal(claims.claim(first, id, nameKey, id), undefined, 'the claimant goes on');
  });

  it('gives an id two objects record to the older one (creationTimestamp, then uid)', () => {
    const { cache, put } = liveCache();
    const claims = new CoderIDClaims(cache);
    const older = put(provider('a', 'corp', '2026-01-01T00:00:00Z', id));
    const newer = put(provider('b', 'takeover', '2026-02-01T00:00:00Z', id));
    assert.equal(who(claims.claim(newer, id, nameKey, id)), 'a/corp');
    assert.equal(claims.claim(older, id, nameKey, id), undefined);
    const sameSecondLow = put(provider('c', 'x', '2026-03-01T00:00:00Z', 'other-id', 'uid-0'));
    const sameSecondHigh = put(provider('d', 'y', '2026-03-01T00:00:00Z', 'other-id', 'uid-9'));
    assert.equal(who(claims.claim(sameSecondHigh, 'other-id', nameKey, 'other-id')), 'c/x');
    assert.equal(claims.claim(sameSecondLow, 'other-id', nameKey, 'other-id'), undefined);
  });

  it('keeps an adopter from a name while another object creates it, then hands the id to the creator', () => {
    const { cache, put } = liveCache();
    const claims = new CoderIDClaims(cache);
    const creator = put(provider('a', 'corp', '2026-02-01T00:00:00Z'));
    const adopter = put(provider('b', 'takeover', '2026-01-01T00:00:00Z'));
    assert.equal(claims.startCreate(creator, nameKey), undefined);
    assert.equal(who(claims.startCreate(adopter, nameKey)), 'a/corp');
    assert.equal(who(claims.claim(adopter, id, nameKey, undefined)), 'a/corp', 'Coder lists it before the create answers');
    claims.endCreate(creator, nameKey, id);
    assert.equal(who(claims.claim(adopter, id, nameKey, undefined)), 'a/corp');
  });

  it('frees the id once the holder is gone, or records another id', () => {
    const { cache, put, remove } = liveCache();
    const claims = new CoderIDClaims(cache);
    const holder = put(provider('a', 'corp', '2026-01-01T00:00:00Z'));
    const waiting = put(provider('b', 'takeover', '2026-02-01T00:00:00Z'));
    claims.claim(holder, id, nameKey, undefined);
    put({ ...holder, status: { coderID: 'recreated-id' } });
    assert.equal(claims.claim(waiting, id, nameKey, undefined), undefined, 'the holder records another id');
    claims.release(waiting);
    const recorded = put(provider('c', 'corp2', '2025-01-01T00:00:00Z', id));
    assert.equal(who(claims.holderOf(waiting, id)), 'c/corp2');
    remove(recorded);
    assert.equal(claims.holderOf(waiting, id), undefined);
  });

  it('brings back the refused objects when a holder is deleted or stops recording its id', () => {
    const { cache, put } = liveCache();
    const claims = new CoderIDClaims(cache);
    const holder = put(provider('a', 'corp', '2026-01-01T00:00:00Z', id));
    const refused = put(provider('b', 'takeover', '2026-02-01T00:00:00Z'));
    refused.status = { conditions: [{ type: 'Synced', status: 'False', reason: 'ManagedByAnotherObject' } as never] };
    put(provider('c', 'fine', '2026-02-01T00:00:00Z', 'another-id'));
    const watch = claims.releasedWatch();
    assert.deepEqual(watch.map(holder), ['b/takeover']);
    assert.deepEqual(watch.map(refused), [], 'one that records nothing frees nothing');
    assert.equal(watch.filter.create, false);
    assert.equal(watch.filter.update!(holder, { ...holder, status: {} }), true);
    assert.equal(watch.filter.update!(holder, holder), false);
  });

  it('tells which id an object created, for when its status could not record it, until it creates another or gives it up', () => {
    const { cache, put } = liveCache();
    const claims = new CoderIDClaims(cache);
    const creator = put(provider('a', 'corp', '2026-01-01T00:00:00Z'));
    assert.equal(claims.startCreate(creator, nameKey), undefined);
    claims.endCreate(creator, nameKey, id);
    assert.equal(claims.createdBy(creator), id);
    assert.equal(claims.claim(creator, id, nameKey, id), undefined);
    assert.equal(claims.createdBy(creator), id, 'still what it created once it goes on with it');
    claims.endCreate(creator, nameKey, 'recreated-id');
    assert.equal(claims.createdBy(creator), 'recreated-id');
    claims.release(creator);
    assert.equal(claims.createdBy(creator), undefined);
  });

  it('counts neither an adopted id nor a failed create as created', () => {
    const { cache, put } = liveCache();
    const claims = new CoderIDClaims(cache);
    const adopter = put(provider('a', 'corp', '2026-01-01T00:00:00Z'));
    assert.equal(claims.claim(adopter, id, nameKey, undefined), undefined);
    claims.startCreate(adopter, nameKey);
    claims.endCreate(adopter, nameKey);
    assert.equal(claims.createdBy(adopter), undefined);
  });

  it('keys a name by Coder deployment, else by control plane', () => {
    const cp = { metadata: { namespace: 'a', name: 'coder' } };
    assert.equal(coderNameKey('dep', cp, 'corp'), coderNameKey('dep', { metadata: { namespace: 'b', name: 'other' } }, 'corp'));
    assert.notEqual(coderNameKey('', cp, 'corp'), coderNameKey('', { metadata: { namespace: 'b', name: 'coder' } }, 'corp'));
  });
});
