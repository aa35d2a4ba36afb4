import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OperatorAccessError } from '../../../../src/coder/operator-access/errors.ts';
import { requireRoles } from '../../../../src/coder/operator-access/roles.ts';

describe('requireRoles', () => {
  it('defaults to owner, what every earlier version granted', () => {
    assert.deepEqual(requireRoles(undefined), { site: ['owner'], organization: [] });
  });

  it('keeps Coder role names, sorted and without repeats, so an unchanged choice compares equal to the stored row', () => {
    assert.deepEqual(requireRoles({ site: ['user-admin', 'auditor', 'auditor'], organization: ['organization-admin'] }), {
      site: ['auditor', 'user-admin'],
      organization: ['organization-admin'],
    });
  });

  for (const [what, roles] of [
    ['an organization role as a site role (Coder would drop it silently)', { site: ['organization-admin'], organization: [] }],
    ['a site role as an organization role', { site: [], organization: ['owner'] }],
    ['a name Coder does not know', { site: ['admin'], organization: [] }],
  ] as const) {
    it(`refuses ${what} as Invalid`, () => {
      assert.throws(
        () => requireRoles({ site: [...roles.site], organization: [...roles.organization] }),
        (err: unknown) => err instanceof OperatorAccessError && err.reason === 'Invalid',
      );
    });
  }
});
