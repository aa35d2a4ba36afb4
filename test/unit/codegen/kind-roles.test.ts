import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { kindRolesPath, kindRolesYaml } from '../../../codegen/kind-roles.ts';
import type { KindSource } from '../../../codegen/load.ts';

interface ClusterRole {
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
}

const aKind = (kind: string, plural: string) => ({ kind, group: 'coder.com', names: { plural } }) as KindSource;
const roles = (kinds: KindSource[]) => parseAllDocuments(kindRolesYaml(kinds)).map((d) => d.toJS() as ClusterRole);

describe('editor and viewer roles stage', () => {
  it('gives the editor every write verb on the kind and get on its status, aggregated to edit and admin', () => {
    const [editor] = roles([aKind('CoderTemplateTest', 'codertemplatetests')]);
    assert.equal(editor!.metadata.name, 'coder-k8s-codertemplatetest-editor');
    assert.deepEqual(editor!.metadata.labels, {
      'app.kubernetes.io/name': 'coder-k8s',
      'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
      'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
    });
    assert.deepEqual(editor!.rules, [
      {
        apiGroups: ['coder.com'],
        resources: ['codertemplatetests'],
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      },
      { apiGroups: ['coder.com'], resources: ['codertemplatetests/status'], verbs: ['get'] },
    ]);
  });

  it('gives the viewer only get, list and watch on the kind and get on its status, aggregated to view', () => {
    const [, viewer] = roles([aKind('CoderTemplateTest', 'codertemplatetests')]);
    assert.equal(viewer!.metadata.name, 'coder-k8s-codertemplatetest-viewer');
    assert.deepEqual(viewer!.metadata.labels, {
      'app.kubernetes.io/name': 'coder-k8s',
      'rbac.authorization.k8s.io/aggregate-to-view': 'true',
    });
    assert.deepEqual(viewer!.rules, [
      { apiGroups: ['coder.com'], resources: ['codertemplatetests'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['coder.com'], resources: ['codertemplatetests/status'], verbs: ['get'] },
    ]);
  });

  it('makes the same file whatever order the kinds come in', () => {
    const a = aKind('CoderProvisioner', 'coderprovisioners');
    const b = aKind('CoderAIProvider', 'coderaiproviders');
    assert.equal(kindRolesYaml([a, b]), kindRolesYaml([b, a]));
  });

  it('has an editor and a viewer for every CRD of config/crd/bases, touching that kind only', () => {
    const crds = readdirSync('config/crd/bases').map(
      (f) => parse(readFileSync(`config/crd/bases/${f}`, 'utf8')) as { spec: { names: { kind: string; plural: string } } },
    );
    const generated = parseAllDocuments(readFileSync(kindRolesPath, 'utf8')).map((d) => d.toJS() as ClusterRole);
    assert.deepEqual(
      generated.map((r) => r.metadata.name).sort(),
      crds.flatMap(({ spec }) => ['editor', 'viewer'].map((role) => `coder-k8s-${spec.names.kind.toLowerCase()}-${role}`)).sort(),
    );
    for (const role of generated) {
      const plural = crds.find(
        ({ spec }) =>
          role.metadata.name === `coder-k8s-${spec.names.kind.toLowerCase()}-editor` ||
          role.metadata.name === `coder-k8s-${spec.names.kind.toLowerCase()}-viewer`,
      )!.spec.names.plural;
      assert.deepEqual(
        role.rules.flatMap((r) => r.resources),
        [plural, `${plural}/status`],
        `${role.metadata.name} names only its kind`,
      );
    }
  });
});
