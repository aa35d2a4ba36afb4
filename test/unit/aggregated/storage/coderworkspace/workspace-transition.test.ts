// coderworkspaces/start and /stop decide from the latest build, and the router gives a
// subresource its verb for the SubjectAccessReview.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schemas } from '../../../../../src/coder/api-types.ts';
import { route } from '../../../../../src/aggregated/server/request-info.ts';
import { ApiStatusError } from '../../../../../src/aggregated/status.ts';
import { decideTransition } from '../../../../../src/aggregated/storage/coderworkspace/workspace-transition.ts';

const build = (transition: string, status: string) => ({ transition, job: { status } }) as unknown as Schemas['WorkspaceBuild'];

describe('start and stop', () => {
  for (const [want, transition, job, decision] of [
    ['start', 'stop', 'succeeded', 'queue'],
    ['start', 'start', 'succeeded', 'Unchanged'],
    ['start', 'start', 'pending', 'InProgress'],
    ['start', 'start', 'running', 'InProgress'],
    ['start', 'start', 'failed', 'queue'],
    ['stop', 'stop', 'canceled', 'queue'],
    ['stop', 'start', 'succeeded', 'queue'],
    ['stop', 'delete', 'failed', 'queue'],
  ] as const)
    it(`${want} after a ${job} ${transition} build: ${decision}`, () =>
      assert.equal(decideTransition('acme.alice.dev', want, build(transition, job)), decision));

  for (const [want, transition, job, why] of [
    ['stop', 'start', 'running', /cannot stop workspace "acme\.alice\.dev": its start build is running; try again when it ends/],
    ['start', 'stop', 'pending', /its stop build is pending/],
    ['start', 'start', 'canceling', /its start build is canceling/],
    ['start', 'delete', 'running', /cannot start workspace "acme\.alice\.dev": it is being deleted/],
  ] as const)
    it(`${want} after a ${job} ${transition} build: 409`, () =>
      assert.throws(
        () => decideTransition('acme.alice.dev', want, build(transition, job)),
        (err: unknown) => err instanceof ApiStatusError && err.code === 409 && why.test(err.message),
      ));

  it('routes subresources with the verb of their method', () => {
    const base = '/apis/aggregation.coder.com/v1alpha1/namespaces/ns';
    assert.deepEqual(route('POST', `${base}/coderworkspaces/acme.a.b/start`, new URLSearchParams()), {
      type: 'resource',
      resource: 'coderworkspaces',
      namespace: 'ns',
      name: 'acme.a.b',
      subresource: 'start',
      verb: 'create',
    });
    assert.equal((route('GET', `${base}/coderworkspaces/acme.a.b/log`, new URLSearchParams()) as { verb: string }).verb, 'get');
    assert.equal(route('GET', `${base}/coderworkspaces/acme.a.b/log/x`, new URLSearchParams()).type, 'unknown');
  });
});
