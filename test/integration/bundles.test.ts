// The single-file installs, applied as the deploy guide says (`kubectl apply --server-side -f dist/<file>`)
// on a fresh control plane each: every object of the file exists afterwards, the Deployment runs the app mode
// and image of the release, and the operator's ServiceAccount holds its rights in coder-system. The
// controller bundle is what `kubectl apply -k config/default` installs, object for object.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectl, kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';

interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
  spec?: {
    service?: { name: string; namespace: string };
    template?: { spec?: { containers: { name: string; image: string; args?: string[] }[] } };
  };
}

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const crdNames = readdirSync('config/crd/bases').map((f) => f.replace(/^coder\.com_(.*)\.yaml$/, '$1.coder.com'));
const serviceAccount = 'system:serviceaccount:coder-system:coder-k8s';

const id = (o: ManifestObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
const parseObjects = (text: string) =>
  parseAllDocuments(text)
    .map((doc) => doc.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);
const bundle = (file: string) => parseObjects(readFileSync(file, 'utf8'));

/** Installs `file` on a fresh control plane as the deploy guide does, for the tests of one describe. */
function installed(file: string): { admin: () => string } {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    await kubectlOk(cp.adminKubeconfigPath, ['apply', '--server-side', '-f', file]);
    await waitForCrdsEstablished(cp.adminKubeconfigPath, crdNames);
  });
  after(() => cp?.stop());
  return { admin: () => cp.adminKubeconfigPath };
}

async function liveObjects(admin: string, file: string): Promise<ManifestObject[]> {
  const { items } = JSON.parse(await kubectlOk(admin, ['get', '-f', file, '-o', 'json'])) as { items: ManifestObject[] };
  return items;
}

async function assertServiceAccountRights(admin: string): Promise<void> {
  const canI = async (...args: string[]) => (await kubectl(admin, ['auth', 'can-i', `--as=${serviceAccount}`, ...args])).stdout.trim();
  assert.equal(await canI('list', 'codercontrolplanes.coder.com', '--all-namespaces'), 'yes');
  assert.equal(await canI('create', 'deployments.apps', '-n', 'coder'), 'yes');
  assert.equal(await canI('create', 'tokenreviews.authentication.k8s.io'), 'yes');
  assert.equal(await canI('-n', 'kube-system', 'get', 'configmaps/extension-apiserver-authentication'), 'yes');
  assert.equal(await canI('create', 'clusterroles.rbac.authorization.k8s.io'), 'no');
}

function assertBindingsNameTheServiceAccount(objects: ManifestObject[]): void {
  const bindings = objects.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding');
  assert.ok(bindings.length >= 4, `found bindings: ${bindings.map(id).join(', ')}`);
  for (const binding of bindings) {
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'coder-k8s', namespace: 'coder-system' }], id(binding));
  }
}

function operatorContainer(objects: ManifestObject[]) {
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'coder-k8s');
  assert.ok(deployment, 'the Deployment coder-k8s exists');
  return deployment.spec!.template!.spec!.containers.find((c) => c.name === 'coder-k8s')!;
}

describe('dist/install.yaml (--app=all)', () => {
  const { admin } = installed('dist/install.yaml');

  it('creates every object of the file', async () => {
    const live = await liveObjects(admin(), 'dist/install.yaml');
    assert.deepEqual(live.map(id).sort(), bundle('dist/install.yaml').map(id).sort());
    for (const expected of [
      'Namespace coder-system',
      'APIService v1alpha1.aggregation.coder.com',
      'Service coder-system/coder-k8s-apiserver',
      'ClusterRoleBinding coder-k8s-auth-delegator',
      'RoleBinding kube-system/coder-k8s-authentication-reader',
      'ClusterRole coder-k8s-codertemplatetest-editor',
      'ClusterRole coder-k8s-codertemplatetest-viewer',
    ]) {
      assert.ok(live.map(id).includes(expected), `${expected} is installed`);
    }
  });

  it('runs the release image with --app=all, registered as the aggregated API behind its Service', async () => {
    const live = await liveObjects(admin(), 'dist/install.yaml');
    const container = operatorContainer(live);
    assert.equal(container.image, `ghcr.io/coder/coder-k8s:v${version}`);
    assert.deepEqual(container.args, ['--app=all']);
    const apiService = live.find((o) => o.kind === 'APIService')!;
    assert.deepEqual(apiService.spec!.service, { name: 'coder-k8s-apiserver', namespace: 'coder-system', port: 443 });
  });

  it("binds the operator's ServiceAccount in coder-system to its roles", async () => {
    assertBindingsNameTheServiceAccount(await liveObjects(admin(), 'dist/install.yaml'));
    await assertServiceAccountRights(admin());
  });
});

describe('dist/install-controller.yaml (--app=controller)', () => {
  const { admin } = installed('dist/install-controller.yaml');

  it('holds exactly the objects `kubectl kustomize config/default` builds', async () => {
    const built = parseObjects(await kubectlOk(admin(), ['kustomize', 'config/default']));
    const file = bundle('dist/install-controller.yaml');
    assert.deepEqual(file.map(id).sort(), built.map(id).sort());
    for (const object of file)
      assert.deepEqual(
        object,
        built.find((b) => id(b) === id(object)),
        id(object),
      );
  });

  it('creates every object of the file, the controller only, with the release image', async () => {
    const live = await liveObjects(admin(), 'dist/install-controller.yaml');
    assert.deepEqual(live.map(id).sort(), bundle('dist/install-controller.yaml').map(id).sort());
    assert.ok(!live.some((o) => o.kind === 'APIService'), 'no APIService without the aggregated API server');
    const container = operatorContainer(live);
    assert.equal(container.image, `ghcr.io/coder/coder-k8s:v${version}`);
    assert.deepEqual(container.args, ['--app=controller']);
  });

  it("binds the operator's ServiceAccount in coder-system to its roles", async () => {
    assertBindingsNameTheServiceAccount(await liveObjects(admin(), 'dist/install-controller.yaml'));
    await assertServiceAccountRights(admin());
  });
});
