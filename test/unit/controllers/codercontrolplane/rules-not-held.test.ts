import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeApiError } from '../../../../src/runtime/kube-http.ts';
import {
  describePermission,
  extraRulesAskingFor,
  permissionsNotHeld,
} from '../../../../src/controllers/codercontrolplane/rules-not-held.ts';

// The shape kube-apiserver's escalation check answers with (ConfirmNoEscalation in its RBAC registry).
const refusal = (rules: string, tail = '') =>
  new KubeApiError(
    403,
    {
      kind: 'Status',
      code: 403,
      reason: 'Forbidden',
      message:
        'roles.rbac.authorization.k8s.io "coder-1a2b3c4d-workspace-perms" is forbidden: user "system:serviceaccount:coder-system:coder-k8s" ' +
        `(groups=["system:serviceaccounts" "system:serviceaccounts:coder-system" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n${rules}${tail}`,
    },
    'PATCH',
    '/apis/rbac.authorization.k8s.io/v1/namespaces/coder/roles/x',
  );

describe('permissions an escalation refusal lists', () => {
  it('reads each listed rule', () => {
    const missing = permissionsNotHeld(
      refusal(
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n{APIGroups:["batch"], Resources:["jobs" "cronjobs"], Verbs:["get" "watch"]}',
      ),
    );
    assert.deepEqual(missing, [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
      { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: ['get', 'watch'] },
    ]);
    assert.deepEqual(missing!.map(describePermission), ['configmaps (core): list', 'jobs,cronjobs (batch): get, watch']);
  });

  it('leaves out the resolution errors the API server may append', () => {
    const missing = permissionsNotHeld(
      refusal(
        '{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}',
        '; resolution errors: [role.rbac.authorization.k8s.io "gone" not found {x}]',
      ),
    );
    assert.deepEqual(missing, [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }]);
  });

  it('is not fooled by another 403 or another error', () => {
    assert.equal(permissionsNotHeld(new KubeApiError(403, { message: 'forbidden: nope' }, 'PATCH', '/x')), undefined);
    assert.equal(
      permissionsNotHeld(new KubeApiError(422, { message: 'attempting to grant RBAC permissions not currently held:' }, 'PATCH', '/x')),
      undefined,
    );
    assert.equal(permissionsNotHeld(new Error('attempting to grant RBAC permissions not currently held:')), undefined);
  });
});

describe('the extraRules entries that ask for what is not held', () => {
  const extraRules = [
    { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
    { apiGroups: ['*'], resources: ['*'], verbs: ['list'] },
  ];

  it('names each entry whose groups, resources and verbs cover a missing permission, wildcards included', () => {
    assert.deepEqual(extraRulesAskingFor(extraRules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]), [1, 2]);
    assert.deepEqual(extraRulesAskingFor(extraRules, [{ apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get'] }]), [0]);
    assert.deepEqual(extraRulesAskingFor(extraRules, [{ apiGroups: [''], resources: ['pods'], verbs: ['deletecollection'] }]), []);
  });
});
