import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AggregatedObject } from '../../../../generated/aggregated/types.ts';
import { fieldSelector, labelSelector } from '../../../../src/aggregated/server/selectors.ts';
import { ApiStatusError } from '../../../../src/aggregated/status.ts';

const obj = (name: string, labels: Record<string, string>) =>
  ({ metadata: { name, namespace: 'coder', labels } }) as unknown as AggregatedObject;
const a = obj('acme.alice.dev', { 'aggregation.coder.com/owner': 'alice', tier: 'gold' });
const b = obj('acme.bob.dev', { 'aggregation.coder.com/owner': 'bob' });

describe('selectors of list and watch', () => {
  it('selects on labels: =, ==, !=, in, notin, exists, not exists', () => {
    const pick = (s: string) => [a, b].filter(labelSelector(s)).map((o) => o.metadata.name);
    assert.deepEqual(pick('aggregation.coder.com/owner=bob'), ['acme.bob.dev']);
    assert.deepEqual(pick('aggregation.coder.com/owner==alice,tier'), ['acme.alice.dev']);
    assert.deepEqual(pick('aggregation.coder.com/owner!=alice'), ['acme.bob.dev']);
    assert.deepEqual(pick('aggregation.coder.com/owner in (alice, bob)'), ['acme.alice.dev', 'acme.bob.dev']);
    assert.deepEqual(pick('aggregation.coder.com/owner notin (alice)'), ['acme.bob.dev']);
    assert.deepEqual(pick('!tier'), ['acme.bob.dev']);
    assert.deepEqual(pick(''), ['acme.alice.dev', 'acme.bob.dev']);
  });

  it('selects on metadata.name and metadata.namespace only', () => {
    assert.deepEqual([a, b].filter(fieldSelector('metadata.name=acme.bob.dev')), [b]);
    assert.deepEqual([a, b].filter(fieldSelector('metadata.namespace==coder,metadata.name!=acme.bob.dev')), [a]);
    assert.throws(
      () => fieldSelector('spec.running=true'),
      (e: ApiStatusError) => e.code === 400 && /supported fields: metadata.name, metadata.namespace/.test(e.message),
    );
  });
});
