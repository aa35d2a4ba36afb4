import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildKustomization } from '../../../codegen/kustomization.ts';
import { tempDir } from '../../harness/temp-dir.ts';

function tree(files: Record<string, string>): string {
  const root = tempDir('kustomization');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: op, namespace: ops}
spec: {template: {spec: {containers: [{name: op, image: op:v1}]}}}
`;
const serviceAccount = 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op, namespace: ops}\n';
const clusterRole = '# a comment\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\n---\n';

describe('reading a kustomization for the bundles', () => {
  it('follows resources into other kustomization directories, in order, and applies inline JSON patches', () => {
    const root = tree({
      'top/kustomization.yaml': `namespace: ops
resources: [../rbac, ../deploy]
patches:
  - target: {group: apps, kind: Deployment, name: op}
    patch: '[{"op": "add", "path": "/spec/template/spec/containers/0/args", "value": ["--app=controller"]}]'
`,
      'rbac/Kustomization': 'resources: [sa.yaml, role.yaml]\n',
      'rbac/sa.yaml': serviceAccount,
      'rbac/role.yaml': clusterRole,
      'deploy/Kustomization': 'resources: [deployment.yaml]\n',
      'deploy/deployment.yaml': deployment,
    });
    const read = (path: string) => readFileSync(join(root, path), 'utf8');
    const built = buildKustomization(root, 'top', read);
    assert.deepEqual(
      built.objects.map((o) => `${o.kind} ${o.metadata.name}`),
      ['ServiceAccount op', 'ClusterRole reader', 'Deployment op'],
    );
    assert.deepEqual(
      (built.objects[2]!.spec as { template: { spec: { containers: { args: string[] }[] } } }).template.spec.containers[0]!.args,
      ['--app=controller'],
    );
    assert.deepEqual(built.files, [
      'top/kustomization.yaml',
      'rbac/Kustomization',
      'rbac/sa.yaml',
      'rbac/role.yaml',
      'deploy/Kustomization',
      'deploy/deployment.yaml',
    ]);
  });

  it('reads through the function it is given, so fresh codegen output wins over the disk', () => {
    const root = tree({ 'k/kustomization.yaml': 'resources: [sa.yaml]\n', 'k/sa.yaml': serviceAccount });
    const built = buildKustomization(root, 'k', (path) =>
      path === 'k/sa.yaml' ? serviceAccount.replace('name: op', 'name: fresh') : readFileSync(join(root, path), 'utf8'),
    );
    assert.equal(built.objects[0]!.metadata.name, 'fresh');
  });

  it('refuses what it would not build as kubectl kustomize does, naming the file and the field', () => {
    const read = (root: string) => (path: string) => readFileSync(join(root, path), 'utf8');
    const images = tree({
      'k/kustomization.yaml': 'resources: [sa.yaml]\nimages: [{name: op, newTag: v2}]\n',
      'k/sa.yaml': serviceAccount,
    });
    assert.throws(
      () => buildKustomization(images, 'k', read(images)),
      /k\/kustomization\.yaml: the bundle generator does not apply images/,
    );

    const moved = tree({ 'k/kustomization.yaml': 'namespace: elsewhere\nresources: [sa.yaml]\n', 'k/sa.yaml': serviceAccount });
    assert.throws(() => buildKustomization(moved, 'k', read(moved)), /sets namespace elsewhere, but ServiceAccount op is in ops/);

    const transformer = tree({ 'k/kustomization.yaml': 'resources: [sa.yaml]\ntransformers: [../labels]\n', 'k/sa.yaml': serviceAccount });
    assert.throws(() => buildKustomization(transformer, 'k', read(transformer)), /does not apply the transformer \.\.\/labels/);

    const remove = tree({
      'k/kustomization.yaml': `resources: [d.yaml]\npatches: [{target: {kind: Deployment}, patch: '[{"op": "remove", "path": "/spec"}]'}]\n`,
      'k/d.yaml': deployment,
    });
    assert.throws(() => buildKustomization(remove, 'k', read(remove)), /applies add and replace, not remove/);

    const missing = tree({
      'k/kustomization.yaml': `resources: [d.yaml]\npatches: [{target: {kind: StatefulSet}, patch: '[]'}]\n`,
      'k/d.yaml': deployment,
    });
    assert.throws(() => buildKustomization(missing, 'k', read(missing)), /matches no object/);
  });
});
