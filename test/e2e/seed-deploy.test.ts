// The deploy guide's commands, as written, against a real control plane (kwok runs the pods).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { podLogLines } from '../harness/kwok.ts';

describe('deploy guide: install, controller-only mode, verify', () => {
  let cp: ControlPlane;
  let admin: string;

  before(async () => {
    cp = await startControlPlane({ kwok: true });
    admin = cp.adminKubeconfigPath;
  });
  after(() => cp?.stop());

  it('installs the CRDs and RBAC', async () => {
    await kubectlOk(admin, ['create', 'namespace', 'coder-system']);
    const out = await kubectlOk(admin, ['apply', '-f', 'config/crd/bases/', '-f', 'config/rbac/']);
    assert.match(out, /customresourcedefinition\.apiextensions\.k8s\.io\/codercontrolplanes\.coder\.com created/);
    assert.match(out, /clusterrole\.rbac\.authorization\.k8s\.io\/manager-role created/);
  });

  it('deploys the operator and patches it to --app=controller', async () => {
    await kubectlOk(admin, ['apply', '-f', 'deploy/deployment.yaml']);
    await kubectlOk(admin, [
      '-n',
      'coder-system',
      'patch',
      'deployment/coder-k8s',
      '--type=json',
      '-p=[{"op":"add","path":"/spec/template/spec/containers/0/args","value":["--app=controller"]}]',
    ]);
    const args = await kubectlOk(admin, [
      '-n',
      'coder-system',
      'get',
      'deployment/coder-k8s',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].args}',
    ]);
    assert.equal(args, '["--app=controller"]');
    const status = await kubectlOk(admin, ['rollout', 'status', 'deployment/coder-k8s', '-n', 'coder-system', '--timeout=90s']);
    assert.match(status, /successfully rolled out/);
    // kwok runs no container: it serves the same lines as every container's log. What this shows is that the
    // guide's command finds the Deployment's one pod and its one container without asking which.
    const logs = await kubectlOk(admin, ['logs', '-n', 'coder-system', 'deploy/coder-k8s']);
    assert.equal(logs, podLogLines.map((line) => `${line}\n`).join(''));
  });

  it('registers the aggregated API for --app=all', async () => {
    const out = await kubectlOk(admin, ['apply', '-f', 'deploy/apiserver-service.yaml', '-f', 'deploy/apiserver-apiservice.yaml']);
    assert.match(out, /service\/coder-k8s-apiserver created/);
    assert.match(out, /apiservice\.apiregistration\.k8s\.io\/v1alpha1\.aggregation\.coder\.com created/);
  });

  it('accepts the smoke-test sample', async () => {
    await kubectlOk(admin, ['create', 'namespace', 'coder']);
    await kubectlOk(admin, ['apply', '-f', 'config/samples/coder_v1alpha1_codercontrolplane.yaml']);
    assert.match(await kubectlOk(admin, ['get', 'codercontrolplanes', '-A']), /^coder\s+coder\s/m);
  });
});
