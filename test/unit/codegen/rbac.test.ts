import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { mergeRules, namespacedInstallRolesYaml, readPermissions } from '../../../codegen/rbac.ts';
import { tempDir } from '../../harness/temp-dir.ts';

describe('RBAC stage', () => {
  it('merges rules per group and resource, unions verbs, and sorts', () => {
    const merged = mergeRules([
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['secrets', 'services'], verbs: ['get', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['watch', 'get'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['tls'] },
    ]);
    assert.deepEqual(merged, [
      { apiGroups: [''], resources: ['configmaps', 'secrets', 'services'], verbs: ['get', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['tls'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'get', 'list'] },
    ]);
  });

  it('reads literal declarations and refuses computed ones, naming the file and line', () => {
    const dir = tempDir('perm');
    writeFileSync(
      join(dir, 'ok.permissions.ts'),
      "export const permissions = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] as const;\n",
    );
    const [declared] = readPermissions([join(dir, 'ok.permissions.ts')]);
    assert.deepEqual(declared!.rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);

    writeFileSync(
      join(dir, 'bad.permissions.ts'),
      "const verbs = ['get'];\nexport const permissions = [{ apiGroups: [''], resources: ['pods'], verbs }];\n",
    );
    assert.throws(() => readPermissions([join(dir, 'bad.permissions.ts')]), /only plain properties/);
    writeFileSync(
      join(dir, 'bad2.permissions.ts'),
      "const all = 'get';\nexport const permissions = [{ apiGroups: [''], resources: ['pods'], verbs: [all] }];\n",
    );
    assert.throws(
      () => readPermissions([join(dir, 'bad2.permissions.ts')]),
      /bad2\.permissions\.ts:2: permissions must be literals, found `all`/,
    );
  });

  it('splits the rules of the namespaced install by scope', () => {
    const yaml = namespacedInstallRolesYaml([
      {
        file: 'a.ts',
        rules: [
          { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
          { apiGroups: [''], resources: ['namespaces'], verbs: ['list'], scope: 'cluster' },
          { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'], scope: 'operator-namespace' },
        ],
      },
      { file: 'b.ts', rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['watch'], scope: 'cluster' }] },
    ]);
    const roles = parseAllDocuments(yaml).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string; namespace?: string }; rules: unknown[] },
    );
    assert.deepEqual(
      roles.map((r) => [r.kind, r.metadata.name, r.metadata.namespace, r.rules]),
      [
        ['ClusterRole', 'coder-k8s-namespaced', undefined, [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]],
        ['ClusterRole', 'coder-k8s-cluster-scoped', undefined, [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] }]],
        [
          'Role',
          'coder-k8s-operator-namespace',
          'coder-system',
          [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] }],
        ],
      ],
    );
  });

  it('refuses a resource that two declarations give different scopes', () => {
    assert.throws(
      () =>
        namespacedInstallRolesYaml([
          { file: 'a.ts', rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'], scope: 'cluster' }] },
          { file: 'b.ts', rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }] },
        ]),
      /b\.ts: core\/namespaces has scope \(watched namespaces\), a\.ts gives it cluster/,
    );
  });
});
