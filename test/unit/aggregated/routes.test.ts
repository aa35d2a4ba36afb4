import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseName } from '../../../src/aggregated/objects.ts';
import { route } from '../../../src/aggregated/routes.ts';

const q = (s = '') => new URLSearchParams(s);
const base = '/apis/aggregation.coder.com/v1alpha1';

describe('paths and verbs (R8, R9, R13) and names (§2.4)', () => {
  it('maps methods and paths to the SubjectAccessReview verb', () => {
    assert.deepEqual(route('GET', `${base}/namespaces/ns/coderworkspaces`, q()), {
      type: 'resource',
      resource: 'coderworkspaces',
      namespace: 'ns',
      verb: 'list',
    });
    assert.equal((route('GET', `${base}/namespaces/ns/coderworkspaces`, q('watch=1')) as { verb: string }).verb, 'watch');
    assert.equal((route('GET', `${base}/coderworkspaces`, q('watch=true')) as { verb: string }).verb, 'watch');
    assert.equal((route('POST', `${base}/namespaces/ns/coderworkspaces`, q()) as { verb: string }).verb, 'create');
    assert.deepEqual(route('DELETE', `${base}/namespaces/ns/codertemplates/acme.t`, q()), {
      type: 'resource',
      resource: 'codertemplates',
      namespace: 'ns',
      name: 'acme.t',
      verb: 'delete',
    });
    assert.equal((route('PATCH', `${base}/namespaces/ns/codertemplates/acme.t`, q()) as { verb: string }).verb, 'patch');
    assert.equal((route('PUT', `${base}/namespaces/ns/codertemplates/acme.t`, q()) as { verb: string }).verb, 'update');
  });

  it('serves health anonymously only on the exact paths', () => {
    for (const p of ['/healthz', '/livez', '/readyz']) assert.equal(route('GET', p, q()).type, 'health');
    for (const p of ['/healthz/ping', '/readyzX', '/version', '/', `${base}/coderworkspaces/x/y`])
      assert.notEqual(route('GET', p, q()).type, 'health');
  });

  it('parses names as the Go original', () => {
    assert.deepEqual(parseName('template', 'acme.starter'), ['acme', 'starter']);
    assert.deepEqual(parseName('workspace', 'acme.alice.dev'), ['acme', 'alice', 'dev']);
    for (const bad of ['', 'acme', 'acme.team.starter', '.starter', 'acme.']) assert.throws(() => parseName('template', bad));
    for (const bad of ['acme.alice', 'acme.alice.team.dev', '.alice.dev', 'acme..dev', 'acme.alice.'])
      assert.throws(() => parseName('workspace', bad));
  });
});
