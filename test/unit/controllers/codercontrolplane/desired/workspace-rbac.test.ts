import type { V1Role, V1RoleBinding } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SpecError } from '../../../../../src/controllers/shared/spec-check.ts';
import {
  buildWorkspaceRbac,
  isManagedWorkspaceRbac,
  workspaceRbacKeepSet,
  workspaceRbacKey,
  workspaceRbacLabelSelector,
} from '../../../../../src/controllers/codercontrolplane/desired/workspace-rbac.ts';
import { aControlPlane, controlPlaneOwnerReference } from '../../../../fixtures/codercontrolplane.ts';
import { fnv32a } from '../../../../../src/runtime/object-names.ts';

const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const hash = fnv32a('coder\0coder');
const roleName = `coder-${hash}-workspace-perms`;
const bindingName = `coder-${hash}`;
const cp = () => aControlPlane('coder').inNamespace('coder').withUid('u-1');

describe('buildWorkspaceRbac', () => {
  it('builds a Role and RoleBinding in the control plane namespace, owned by it', () => {
    const [only, ...rest] = buildWorkspaceRbac(cp().build());
    assert.equal(rest.length, 0);
    assert.equal(only?.namespace, 'coder');
    const metadata = (name: string) => ({
      name,
      namespace: 'coder',
      labels: {
        'app.kubernetes.io/name': 'coder-control-plane',
        'app.kubernetes.io/instance': 'coder',
        'app.kubernetes.io/managed-by': 'coder-k8s',
        'coder.com/control-plane': 'coder',
        'coder.com/control-plane-namespace': 'coder',
      },
      annotations: { 'coder.com/workspace-rbac-owner-uid': 'u-1' },
      ownerReferences: [controlPlaneOwnerReference('coder', 'u-1')],
    });
    assert.deepEqual(only?.role, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: metadata(roleName),
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs },
        { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs },
        { apiGroups: ['apps'], resources: ['deployments'], verbs },
      ],
    });
    assert.deepEqual(only?.roleBinding, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: metadata(bindingName),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: 'coder', namespace: 'coder' }],
    });
  });

  it('orders the rules pods, PVCs, deployments unless off, then extraRules', () => {
    const extra = { apiGroups: [''], resources: ['secrets'], verbs: ['get'] };
    const rules = (builder: ReturnType<typeof cp>) => buildWorkspaceRbac(builder.build())[0]!.role.rules!.map((r) => r.resources![0]);
    assert.deepEqual(rules(cp().withRbac({ extraRules: [extra] })), ['pods', 'persistentvolumeclaims', 'deployments', 'secrets']);
    assert.deepEqual(rules(cp().withRbac({ enableDeployments: false, extraRules: [extra] })), [
      'pods',
      'persistentvolumeclaims',
      'secrets',
    ]);
  });

  it('adds each workspace namespace once, trimmed, without owner references outside the control plane namespace', () => {
    const desired = buildWorkspaceRbac(cp().withWorkspaceNamespaces(' ws-a ', 'coder', 'ws-b', 'ws-a').build());
    assert.deepEqual(
      desired.map((d) => d.namespace),
      ['coder', 'ws-a', 'ws-b'],
    );
    for (const { namespace, role, roleBinding } of desired) {
      assert.equal(role.metadata!.namespace, namespace);
      assert.equal(role.metadata!.name, roleName);
      assert.equal(roleBinding.metadata!.name, bindingName);
      assert.deepEqual(roleBinding.subjects, [{ kind: 'ServiceAccount', name: 'coder', namespace: 'coder' }]);
      assert.equal(role.metadata!.ownerReferences !== undefined, namespace === 'coder');
      assert.equal(roleBinding.metadata!.ownerReferences !== undefined, namespace === 'coder');
      assert.equal(role.metadata!.annotations!['coder.com/workspace-rbac-owner-uid'], 'u-1');
    }
  });

  it('refuses an empty workspace namespace entry, naming its index', () => {
    assert.throws(
      () => buildWorkspaceRbac(cp().withWorkspaceNamespaces('ws-a', '  ').build()),
      (err: unknown) => {
        assert.ok(err instanceof SpecError);
        assert.equal(err.field, 'spec.rbac.workspaceNamespaces[1]');
        assert.match(err.message, /^spec\.rbac\.workspaceNamespaces\[1\]: .*empty/);
        return true;
      },
    );
  });

  it('binds the named ServiceAccount and cuts long names to 253 characters', () => {
    const long = 's'.repeat(253);
    const [d] = buildWorkspaceRbac(cp().withServiceAccount({ name: long }).build());
    assert.equal(d!.role.metadata!.name, `${'s'.repeat(228)}-${hash}-workspace-perms`);
    assert.equal(d!.roleBinding.metadata!.name, `${'s'.repeat(244)}-${hash}`);
    assert.equal(d!.roleBinding.roleRef.name, d!.role.metadata!.name);
    assert.equal(d!.roleBinding.subjects![0]!.name, long);
  });

  it('builds nothing when workspacePerms is false', () => {
    assert.deepEqual(buildWorkspaceRbac(cp().withRbac({ workspacePerms: false }).withWorkspaceNamespaces('ws-a').build()), []);
  });

  it('selects by the two identity labels', () => {
    assert.equal(workspaceRbacLabelSelector(cp().build()), 'coder.com/control-plane=coder,coder.com/control-plane-namespace=coder');
  });
});

describe('isManagedWorkspaceRbac', () => {
  const labels = { 'coder.com/control-plane': 'coder', 'coder.com/control-plane-namespace': 'coder' };
  const controlPlane = cp().build();
  const role = (namespace: string, name: string, extra: Partial<V1Role['metadata']> = {}): V1Role => ({
    metadata: { namespace, name, labels, ...extra },
    rules: [],
  });
  const binding = (namespace: string, name: string, patch: Partial<V1RoleBinding> = {}): V1RoleBinding => ({
    metadata: { namespace, name, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
    subjects: [{ kind: 'ServiceAccount', name: 'coder', namespace: 'coder' }],
    ...patch,
  });
  const none = new Set<string>();
  const ownerRef = { apiVersion: 'coder.com/v1alpha1', kind: 'CoderControlPlane', name: 'coder', uid: 'u-1', controller: true };

  const rows: [string, V1Role | V1RoleBinding, boolean][] = [
    ['controller-owned by this control plane, any name', role('coder', 'old-name', { labels: {}, ownerReferences: [ownerRef] }), true],
    [
      'controller-owned by an earlier control plane of the same name',
      role('coder', 'old-name', { ownerReferences: [{ ...ownerRef, uid: 'u-0' }] }),
      false,
    ],
    [
      'labels and the owner-uid annotation, any name',
      role('ws-a', 'old-name', { annotations: { 'coder.com/workspace-rbac-owner-uid': 'u-1' } }),
      true,
    ],
    [
      'labels and another uid in the annotation',
      role('ws-a', 'old-name', { annotations: { 'coder.com/workspace-rbac-owner-uid': 'u-0' } }),
      false,
    ],
    ['only the labels, another name', role('ws-a', 'someone-elses'), false],
    ['only the labels and the expected Role name, in another namespace', role('ws-a', roleName), true],
    ['only the labels and the expected Role name, in the control plane namespace', role('coder', roleName), false],
    ['the expected name but not the labels', role('ws-a', roleName, { labels: { 'coder.com/control-plane': 'coder' } }), false],
    ['the expected RoleBinding in another namespace', binding('ws-a', bindingName), true],
    [
      'a RoleBinding with the expected name but another Role',
      binding('ws-a', bindingName, { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'other' } }),
      false,
    ],
    [
      'a RoleBinding with the expected name and a second subject',
      binding('ws-a', bindingName, {
        subjects: [
          { kind: 'ServiceAccount', name: 'coder', namespace: 'coder' },
          { kind: 'User', name: 'alice' },
        ],
      }),
      false,
    ],
    [
      'a RoleBinding with the expected name and another ServiceAccount',
      binding('ws-a', bindingName, {
        subjects: [{ kind: 'ServiceAccount', name: 'coder', namespace: 'other' }],
      }),
      false,
    ],
  ];
  for (const [what, obj, managed] of rows) {
    it(`${managed ? 'deletes' : 'keeps'} an object with ${what}`, () =>
      assert.equal(isManagedWorkspaceRbac(controlPlane, obj, none), managed));
  }

  it('keeps what this reconcile applies', () => {
    const desired = buildWorkspaceRbac(cp().withWorkspaceNamespaces('ws-a').build());
    const keep = workspaceRbacKeepSet(desired);
    assert.deepEqual([...keep].sort(), [
      `Role/coder/${roleName}`,
      `Role/ws-a/${roleName}`,
      `RoleBinding/coder/${bindingName}`,
      `RoleBinding/ws-a/${bindingName}`,
    ]);
    for (const { role: r, roleBinding: b } of desired) {
      assert.equal(isManagedWorkspaceRbac(controlPlane, r, keep), false);
      assert.equal(isManagedWorkspaceRbac(controlPlane, b, keep), false);
      assert.equal(isManagedWorkspaceRbac(controlPlane, r, none), true);
      assert.equal(isManagedWorkspaceRbac(controlPlane, b, none), true);
    }
  });

  it('tells a listed RoleBinding from a Role without a kind field', () => {
    assert.equal(workspaceRbacKey(binding('ws-a', 'x')), 'RoleBinding/ws-a/x');
    assert.equal(workspaceRbacKey(role('ws-a', 'x')), 'Role/ws-a/x');
  });

  it('computes the expected names with a blank ServiceAccount name as the control plane name', () => {
    const blank = cp().withServiceAccount({ name: '  ' }).build();
    assert.equal(isManagedWorkspaceRbac(blank, role('ws-a', roleName), none), true);
    assert.equal(isManagedWorkspaceRbac(blank, binding('ws-a', bindingName), none), true);
  });
});
