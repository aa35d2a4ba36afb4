import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cache } from '../../../src/runtime/cache.ts';
import type { KubeObject } from '../../../src/runtime/informer.ts';
import { CachedDataPending, SecretCache } from '../../../src/runtime/secret-cache.ts';

type Secret = KubeObject & { data?: Record<string, string> };

/** Stands in for an informer: objects go through the transform as they arrive, fill() as Informer's. */
function storeWith(transform: (obj: Secret) => Secret) {
  const store = new Map<string, Secret>();
  const key = (o: Secret) => `${o.metadata?.namespace}/${o.metadata?.name}`;
  const cache = {
    get: (ns: string | undefined, name: string) => store.get(`${ns}/${name}`),
    fill: (obj: Secret) => {
      const cached = store.get(key(obj));
      if (cached?.metadata?.resourceVersion !== obj.metadata?.resourceVersion) return false;
      store.set(key(obj), obj);
      return true;
    },
  } as unknown as Cache<Secret>;
  return { cache, arrive: (obj: Secret) => store.set(key(obj), transform(structuredClone(obj))) };
}

const secret = (name: string, rv: string, extra: Partial<NonNullable<Secret['metadata']>> = {}): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'ns', resourceVersion: rv, ...extra },
  data: { key: Buffer.from(`value of ${name}@${rv}`).toString('base64') },
});

describe('SecretCache', () => {
  it('drops the data of Secrets nobody reads, and reads one live the first time a reconcile asks for it', async () => {
    let arrive!: (obj: Secret) => void;
    const reads: string[] = [];
    const live = new Map([['ns/db', secret('db', '1')]]);
    const cache = new SecretCache<Secret>(
      (transform) => {
        const s = storeWith(transform);
        arrive = s.arrive;
        return s.cache;
      },
      async (ns, name) => {
        reads.push(`${ns}/${name}`);
        return structuredClone(live.get(`${ns}/${name}`));
      },
    );
    arrive(secret('db', '1'));
    arrive(secret('helm-release', '1'));
    let pending: CachedDataPending | undefined;
    assert.throws(
      () => cache.get('ns', 'db'),
      (err: unknown) => {
        pending = err as CachedDataPending;
        return err instanceof CachedDataPending && /Secret ns\/db/.test(err.message);
      },
    );
    await pending!.ready;
    assert.deepEqual(reads, ['ns/db']);
    assert.deepEqual(cache.get('ns', 'db')?.data, secret('db', '1').data);
    // Read once, wanted from then on: a new version arrives whole.
    arrive(secret('db', '2'));
    assert.deepEqual(cache.get('ns', 'db')?.data, secret('db', '2').data);
    assert.equal(cache.get('ns', 'missing'), undefined);
  });

  it('keeps whole the Secrets labelled or owned under coder.com', () => {
    let arrive!: (obj: Secret) => void;
    const cache = new SecretCache<Secret>(
      (transform) => {
        const s = storeWith(transform);
        arrive = s.arrive;
        return s.cache;
      },
      async () => assert.fail('no live read'),
    );
    arrive(secret('credential', '1', { labels: { 'coder.com/credential': 'true' } }));
    arrive(
      secret('token', '1', {
        ownerReferences: [{ apiVersion: 'coder.com/v1alpha1', kind: 'CoderControlPlane', name: 'cp', uid: 'u', controller: true }],
      }),
    );
    assert.ok(cache.get('ns', 'credential')?.data);
    assert.ok(cache.get('ns', 'token')?.data);
  });
});
