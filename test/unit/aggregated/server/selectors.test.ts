import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AggregatedObject } from '../../../../generated/aggregated/types.ts';
import {
  exactName,
  fieldSelector,
  labelSelector,
  listOptionsError,
  parseFieldSelector,
} from '../../../../src/aggregated/server/selectors.ts';
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

  it('reads a field selector as Go: nothing trimmed, terms sorted before the first name is taken, values unescaped', () => {
    assert.deepEqual(parseFieldSelector('metadata.name = x'), [
      { term: 'metadata.name = x', field: 'metadata.name ', operator: '=', value: ' x' },
    ]);
    const rows: [selector: string, name: string | undefined][] = [
      ['metadata.name=acme.a.dev', 'acme.a.dev'],
      ['metadata.name= acme.a.dev', ' acme.a.dev'],
      ['metadata.name =acme.a.dev', undefined],
      ['metadata.name=acme.a.other,metadata.name==acme.a.dev', 'acme.a.dev'],
      ['metadata.name=b,metadata.name=a', 'a'],
      ['metadata.name!=a,metadata.name=b', 'b'],
      ['metadata.name=a\\,b', 'a,b'],
      ['metadata.name=', ''],
      ['metadata.name=a,b', undefined],
      ['metadata.name=a=b', undefined],
      ['metadata.name=a\\n', undefined],
      [',metadata.name=a,', 'a'],
    ];
    for (const [selector, name] of rows) assert.equal(exactName(selector), name, selector);
    assert.throws(
      () => fieldSelector(' metadata.name=acme.a.dev'),
      (e: ApiStatusError) => e.code === 400 && /" metadata.name=acme.a.dev" is not supported/.test(e.message),
    );
    assert.throws(
      () => fieldSelector('metadata.name=a=b'),
      (e: ApiStatusError) => e.code === 400 && /unescaped character in value: 61/.test(e.message),
    );
    assert.deepEqual([a, b].filter(fieldSelector('metadata.name=acme.bob.dev,')), [b]);
  });

  it('parses a label selector as Go: keywords as values, > and <, and refuses what labels.Parse refuses', () => {
    const n = obj('n', { count: '7', in: 'notin' });
    const pick = (s: string) => [a, b, n].filter(labelSelector(s)).map((o) => o.metadata.name);
    assert.deepEqual(pick('count>5'), ['n']);
    assert.deepEqual(pick('count<5'), []);
    assert.deepEqual(pick('in in (in,notin)'), ['n']);
    assert.deepEqual(pick('tier in (),aggregation.coder.com/owner'), []);
    assert.deepEqual(pick('tier notin (,gold)'), ['acme.bob.dev', 'n']);
    assert.deepEqual(pick(' tier = gold '), ['acme.alice.dev']);
    assert.deepEqual(pick('tier='), []);
    for (const bad of [
      '!!tier',
      'tier=gold silver',
      'count>x',
      'a/b/c',
      'Acme.io/x',
      'tier=gold$',
      `${'k'.repeat(64)}`,
      'tier in (gold',
      ',tier',
      'tier,',
      'tier notin',
    ])
      assert.throws(
        () => labelSelector(bad),
        (e: ApiStatusError) => e.code === 400,
        bad,
      );
  });

  it('decodes the list options as kube-apiserver: integers where Go wants them, and both selectors', () => {
    const error = (query: string) => listOptionsError(new URLSearchParams(query));
    assert.equal(
      error('limit=500&timeoutSeconds=%2B30&watch=yes&allowWatchBookmarks=what&resourceVersionMatch=any&sendInitialEvents=x'),
      undefined,
    );
    assert.equal(error('labelSelector=tier%20in%20(gold)&fieldSelector=metadata.name%3Dx'), undefined);
    assert.equal(error('limit=abc'), 'strconv.ParseInt: parsing "abc": invalid syntax');
    assert.equal(error('limit='), 'strconv.ParseInt: parsing "": invalid syntax');
    assert.equal(error('timeoutSeconds=1.5'), 'strconv.ParseInt: parsing "1.5": invalid syntax');
    assert.equal(error('limit=9223372036854775808'), 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
    assert.match(error('labelSelector=!!tier')!, /unable to parse requirement: found '!', expected: identifier/);
    assert.match(error('fieldSelector=nonsense')!, /invalid selector: 'nonsense'/);
  });
});
