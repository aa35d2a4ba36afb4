import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';

interface ManifestObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { template?: { spec?: { containers: { image: string; args?: string[] }[] } } };
}

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const objects = (file: string) =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);
const id = (o: ManifestObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
const container = (file: string) => objects(file).find((o) => o.kind === 'Deployment')!.spec!.template!.spec!.containers[0]!;

describe('the single-file bundles', () => {
  it('run the image of this release, install-controller.yaml as --app=controller and install.yaml as --app=all', () => {
    for (const file of ['dist/install.yaml', 'dist/install-controller.yaml']) {
      assert.equal(container(file).image, `ghcr.io/coder/coder-k8s:v${version}`, file);
    }
    assert.deepEqual(container('dist/install-controller.yaml').args, ['--app=controller']);
    assert.deepEqual(container('dist/install.yaml').args, ['--app=all']);
  });

  it('start with the Namespace, so one kubectl apply creates it before what goes in it', () => {
    for (const file of ['dist/install.yaml', 'dist/install-controller.yaml']) assert.equal(id(objects(file)[0]!), 'Namespace coder-system');
  });

  it('differ only by what --app=all needs: the aggregated API server Service and APIService', () => {
    const controller = new Set(objects('dist/install-controller.yaml').map(id));
    const extra = objects('dist/install.yaml')
      .map(id)
      .filter((i) => !controller.has(i));
    assert.deepEqual(extra, ['Service coder-system/coder-k8s-apiserver', 'APIService v1alpha1.aggregation.coder.com']);
  });
});
