import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseName } from '../../../../src/aggregated/convert/object-names.ts';
import { isHealthPath, requestTarget, route } from '../../../../src/aggregated/server/request-info.ts';
import type { ApiStatusError } from '../../../../src/aggregated/status.ts';

const q = (s = '') => new URLSearchParams(s);
const base = '/apis/aggregation.coder.com/v1alpha1';

describe('paths and verbs and names', () => {
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

  it('reads verbs and names as kube-apiserver does, so a Role means the same here as on a built-in resource', () => {
    const verbOf = (method: string, path: string, query = '') => {
      const r = route(method, `${base}${path}`, q(query));
      return r.type === 'resource' ? [r.verb, r.name ?? '', r.subresource ?? ''] : [r.type];
    };
    const ws = '/namespaces/ns/coderworkspaces';
    assert.deepEqual(verbOf('GET', `${ws}/acme.a.dev`, 'watch=true'), ['get', 'acme.a.dev', ''], 'an item GET is a get, watch or not');
    assert.deepEqual(verbOf('HEAD', `${ws}/acme.a.dev`), ['get', 'acme.a.dev', '']);
    assert.deepEqual(verbOf('GET', ws, 'watch=yes'), ['watch', '', '']);
    assert.deepEqual(verbOf('GET', ws, 'watch='), ['watch', '', ''], 'an empty value is true, as Go reads a bool parameter');
    assert.deepEqual(verbOf('GET', ws, 'watch=FALSE'), ['list', '', '']);
    assert.deepEqual(verbOf('GET', ws, 'watch=0'), ['list', '', '']);
    assert.deepEqual(verbOf('GET', ws, 'fieldSelector=metadata.name%3Dacme.a.dev'), ['list', 'acme.a.dev', '']);
    assert.deepEqual(verbOf('GET', ws, 'watch=1&fieldSelector=metadata.namespace%3Dns,metadata.name%3D%3Dacme.a.dev'), [
      'watch',
      'acme.a.dev',
      '',
    ]);
    assert.deepEqual(verbOf('GET', ws, 'fieldSelector=metadata.name!%3Dacme.a.dev'), ['list', '', ''], 'not an exact match');
    assert.deepEqual(verbOf('GET', ws, 'fieldSelector=metadata.name%3D..'), ['list', '', ''], 'not a path segment name');
    assert.deepEqual(verbOf('GET', ws, 'fieldSelector=nonsense'), ['list', '', ''], 'unparseable: no name');
    assert.deepEqual(verbOf('GET', `/watch${ws}/acme.a.dev`), ['watch', 'acme.a.dev', '']);
    assert.deepEqual(verbOf('GET', `/watch${ws}`), ['watch', '', '']);
    assert.deepEqual(verbOf('DELETE', ws), ['deletecollection', '', '']);
    assert.deepEqual(verbOf('POST', `${ws}/acme.a.dev/start`), ['create', 'acme.a.dev', 'start']);
    assert.deepEqual(verbOf('GET', `${ws}/acme.a.dev/log`, 'follow=true&watch=true'), ['get', 'acme.a.dev', 'log']);
    assert.deepEqual(verbOf('OPTIONS', `${ws}/acme.a.dev`), ['', 'acme.a.dev', '']);
    assert.deepEqual(verbOf('GET', '/coderworkspaces/x'), ['unknown'], 'an item has a namespace');
  });

  it('takes the name from a field selector only as kube-apiserver does: untrimmed, sorted, and only when every list option decodes', () => {
    const listOf = (query: string) => {
      const r = route('GET', `${base}/namespaces/ns/coderworkspaces`, q(query));
      return r.type === 'resource' ? [r.verb, r.name ?? ''] : [r.type];
    };
    const name = 'fieldSelector=metadata.name%3Dacme.a.dev';
    assert.deepEqual(listOf('fieldSelector=metadata.name%3D%20acme.a.dev'), ['list', ' acme.a.dev'], 'the space is part of the name');
    assert.deepEqual(listOf('fieldSelector=metadata.name%20%3Dacme.a.dev'), ['list', ''], 'the field is "metadata.name "');
    assert.deepEqual(
      listOf('fieldSelector=metadata.name%3Dacme.a.other,metadata.name%3D%3Dacme.a.dev'),
      ['list', 'acme.a.dev'],
      'sorted first',
    );
    assert.deepEqual(listOf(`limit=abc&${name}`), ['list', ''], 'limit does not decode');
    assert.deepEqual(listOf(`watch=1&timeoutSeconds=soon&${name}`), ['watch', '']);
    assert.deepEqual(listOf(`labelSelector=tier%3Dgold%20silver&${name}`), ['list', ''], 'a label selector Go cannot parse');
    assert.deepEqual(listOf(`limit=500&labelSelector=tier%20in%20(gold)&${name}`), ['list', 'acme.a.dev']);
  });

  it('serves health anonymously only on the exact paths, compared as sent', () => {
    for (const p of ['/healthz', '/livez', '/readyz', '/readyz?verbose']) assert.equal(isHealthPath(p), true, p);
    for (const p of ['/healthz/ping', '/readyzX', '/version', '/', '/healthz/../apis', '/%68ealthz', '/healthz/'])
      assert.equal(isHealthPath(p), false, p);
  });

  it('decodes the path before reading it, as Go gives it to kube-apiserver, and refuses a malformed escape with 400', () => {
    assert.equal(requestTarget(`${base}/namespaces/n%73/coderworkspaces?watch=1`).path, `${base}/namespaces/ns/coderworkspaces`);
    for (const bad of ['/apis/%zz', `${base}/namespaces/ns/coderworkspaces/%E0%A4%A`, '/%'])
      assert.deepEqual(
        (() => {
          try {
            requestTarget(bad);
            return 'accepted';
          } catch (err) {
            return (err as ApiStatusError).code;
          }
        })(),
        400,
        bad,
      );
  });

  it('parses names as the Go original', () => {
    assert.deepEqual(parseName('template', 'acme.starter'), ['acme', 'starter']);
    assert.deepEqual(parseName('workspace', 'acme.alice.dev'), ['acme', 'alice', 'dev']);
    for (const bad of ['', 'acme', 'acme.team.starter', '.starter', 'acme.']) assert.throws(() => parseName('template', bad));
    for (const bad of ['acme.alice', 'acme.alice.team.dev', '.alice.dev', 'acme..dev', 'acme.alice.'])
      assert.throws(() => parseName('workspace', bad));
  });
});
