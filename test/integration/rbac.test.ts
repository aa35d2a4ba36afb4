// The deploy guide's install step works as written, and the operator's ServiceAccount gets exactly the
// generated role: what the controllers declared, and nothing they did not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';

describe('config/rbac on a real API server', () => {
  let cp: ControlPlane;
  let operator: string;

  before(async () => {
    cp = await startControlPlane();
    // The seed: kubectl create namespace coder-system; kubectl apply -f config/crd/bases/ -f config/rbac/
    await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', 'coder-system']);
    await kubectlOk(cp.adminKubeconfigPath, ['apply', '-f', 'config/crd/bases/', '-f', 'config/rbac/']);
    operator = await cp.operatorKubeconfig('coder-system', 'coder-k8s');
  });
  after(() => cp?.stop());

  const canI = async (...args: string[]) => {
    const result = await kubectl(operator, ['auth', 'can-i', ...args]);
    return result.stdout.trim();
  };

  const allowed: string[][] = [
    ['list', 'codercontrolplanes.coder.com', '--all-namespaces'],
    ['patch', 'codercontrolplanes.coder.com', '--subresource=status', '-n', 'coder'],
    ['update', 'coderprovisioners.coder.com', '--subresource=finalizers', '-n', 'coder'],
    ['delete', 'codertemplatetests.coder.com', '-n', 'coder'],
    ['create', 'deployments.apps', '-n', 'coder'],
    ['create', 'roles.rbac.authorization.k8s.io', '-n', 'workspaces'],
    ['deletecollection', 'pods', '-n', 'workspaces'],
    ['watch', 'secrets', '--all-namespaces'],
    ['update', 'leases.coordination.k8s.io', '-n', 'coder-system'],
    ['create', 'events.events.k8s.io', '-n', 'coder'],
  ];
  const denied: string[][] = [
    ['create', 'codercontrolplanes.coder.com', '-n', 'coder'],
    ['create', 'codertemplatetests.coder.com', '-n', 'coder'],
    ['create', 'clusterroles.rbac.authorization.k8s.io'],
    ['create', 'clusterrolebindings.rbac.authorization.k8s.io'],
    ['delete', 'namespaces'],
    ['create', 'customresourcedefinitions.apiextensions.k8s.io'],
    ['get', 'nodes'],
    ['create', 'pods', '--subresource=exec', '-n', 'coder'],
  ];

  for (const args of allowed) {
    it(`allows ${args.join(' ')}`, async () => assert.equal(await canI(...args), 'yes'));
  }
  for (const args of denied) {
    it(`denies ${args.join(' ')}`, async () => assert.equal(await canI(...args), 'no'));
  }
});
