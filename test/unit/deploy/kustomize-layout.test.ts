import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

const resources = (file: string) => (parse(readFileSync(file, 'utf8')) as { resources: string[] }).resources;
const manifests = (dir: string) => readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f));

describe('kustomize layout', () => {
  it('config/rbac/Kustomization lists every manifest that `kubectl apply -f config/rbac/` applies', () => {
    assert.deepEqual(resources('config/rbac/Kustomization').sort(), manifests('config/rbac').sort());
  });

  it('keeps kustomization files out of the directories the deploy guide applies with -f', () => {
    for (const dir of ['config/crd/bases', 'config/rbac', 'deploy']) {
      assert.deepEqual(
        manifests(dir).filter((f) => f.startsWith('kustomization.')),
        [],
        `${dir}/ would make kubectl apply -f ${dir}/ fail`,
      );
    }
  });

  it('config/default installs the Deployment of deploy/ and runs it as the controller only', () => {
    assert.deepEqual(resources('deploy/Kustomization'), ['deployment.yaml']);
    const kustomization = readFileSync('config/default/kustomization.yaml', 'utf8');
    assert.match(kustomization, /--app=controller/);
    assert.deepEqual((parse(kustomization) as { transformers: string[] }).transformers, ['../namespace-override']);
  });
});
