// `kubectl apply -k config/default` installs the namespace, CRDs, RBAC and the controller-only Deployment;
// namespace and image can be overridden while the kube-system RoleBinding stays in kube-system; the
// result applies on a real API server and binds the operator's ServiceAccount where it ended up.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';

interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
  spec?: { template?: { spec?: { containers: { name: string; image: string; args?: string[] }[] } } };
}

const repo = resolve('.');
const image = 'ghcr.io/coder/coder-k8s';
const releaseTag = `v${(JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version}`;
const crdNames = readdirSync('config/crd/bases')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/^coder\.com_(.*)\.yaml$/, '$1.coder.com'))
  .sort();
const kindRoles = readdirSync('config/crd/bases')
  .map((f) => (parse(readFileSync(join('config/crd/bases', f), 'utf8')) as { spec: { names: { kind: string } } }).spec.names.kind)
  .flatMap((kind) => ['editor', 'viewer'].map((role) => `ClusterRole coder-k8s-${kind.toLowerCase()}-${role}`));

async function kustomize(kubeconfig: string, dir: string): Promise<ManifestObject[]> {
  const out = await kubectlOk(kubeconfig, ['kustomize', dir]);
  return parseAllDocuments(out).map((doc) => doc.toJS() as ManifestObject);
}

const id = (o: ManifestObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** What the install must contain when the operator lives in `namespace`. */
function expectedObjects(namespace: string): string[] {
  return [
    `Namespace ${namespace}`,
    ...crdNames.map((n) => `CustomResourceDefinition ${n}`),
    `ServiceAccount ${namespace}/coder-k8s`,
    'ClusterRole manager-role',
    'ClusterRoleBinding coder-k8s',
    'ClusterRoleBinding coder-k8s-auth-delegator',
    'ClusterRole coder-k8s-workspace-grantable',
    'ClusterRoleBinding coder-k8s-workspace-grantable',
    'RoleBinding kube-system/coder-k8s-authentication-reader',
    ...kindRoles,
    `Deployment ${namespace}/coder-k8s`,
  ].sort();
}

function assertInstall(objects: ManifestObject[], namespace: string, tag: string): void {
  assert.deepEqual(objects.map(id).sort(), expectedObjects(namespace));
  for (const binding of objects.filter((o) => o.kind.endsWith('RoleBinding'))) {
    assert.deepEqual(
      binding.subjects,
      [{ kind: 'ServiceAccount', name: 'coder-k8s', namespace }],
      `${id(binding)} binds the ServiceAccount in ${namespace}`,
    );
  }
  const deployment = objects.find((o) => o.kind === 'Deployment')!;
  const container = deployment.spec!.template!.spec!.containers[0]!;
  assert.equal(container.image, `${image}:${tag}`);
  assert.deepEqual(container.args, ['--app=controller']);
}

describe('kustomize install (config/default)', () => {
  let cp: ControlPlane;
  let kubeconfig: string;
  let work: string;
  let overlay: string;

  before(async () => {
    cp = await startControlPlane();
    kubeconfig = cp.adminKubeconfigPath;
    work = mkdtempSync(join(tmpdir(), 'coder-k8s-kustomize-'));
    // An overlay as a user writes one. kustomize takes only relative paths to other kustomizations.
    overlay = join(work, 'overlay');
    mkdirSync(overlay);
    const rel = (path: string) => relative(overlay, join(repo, path));
    writeFileSync(
      join(overlay, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'namespace: team-a',
        'resources:',
        `  - ${rel('config/default')}`,
        'images:',
        `  - name: ${image}`,
        '    newTag: v9.8.7',
        'transformers:',
        `  - ${rel('config/namespace-override')}`,
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await cp?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('builds the namespace, every CRD, the RBAC and the controller-only Deployment of this release', async () => {
    assertInstall(await kustomize(kubeconfig, 'config/default'), 'coder-system', releaseTag);
  });

  it('holds the same objects as the per-file install of config/crd/bases/, config/rbac/ and deploy/deployment.yaml', async () => {
    const perFile = ['config/crd/bases', 'config/rbac']
      .flatMap((dir) =>
        readdirSync(dir)
          .filter((f) => f.endsWith('.yaml'))
          .map((f) => join(dir, f)),
      )
      .concat('deploy/deployment.yaml')
      .flatMap((file) => parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => id(doc.toJS() as ManifestObject)));
    const built = (await kustomize(kubeconfig, 'config/default')).map(id).filter((i) => !i.startsWith('Namespace '));
    assert.deepEqual(built.sort(), perFile.sort());
  });

  it('moves everything but the kube-system RoleBinding with an overlay namespace, and takes its image tag', async () => {
    assertInstall(await kustomize(kubeconfig, overlay), 'team-a', 'v9.8.7');
  });

  it('moves everything but the kube-system RoleBinding when config/default itself sets the namespace', async () => {
    // What `kustomize edit set namespace team-b` does, on a copy of the tree.
    const copy = join(work, 'copy');
    for (const dir of ['config', 'deploy']) cpSync(join(repo, dir), join(copy, dir), { recursive: true });
    const file = join(copy, 'config/default/kustomization.yaml');
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^namespace: coder-system$/m);
    writeFileSync(file, text.replace(/^namespace: coder-system$/m, 'namespace: team-b'));
    assertInstall(await kustomize(kubeconfig, join(copy, 'config/default')), 'team-b', releaseTag);
  });

  it('applies on the API server, and the RBAC binds the ServiceAccount of the overridden namespace', async () => {
    await kubectlOk(kubeconfig, ['apply', '-k', 'config/default']);
    await waitForCrdsEstablished(kubeconfig, crdNames);
    const deployment = JSON.parse(
      await kubectlOk(kubeconfig, ['-n', 'coder-system', 'get', 'deployment', 'coder-k8s', '-o', 'json']),
    ) as ManifestObject;
    assert.deepEqual(deployment.spec!.template!.spec!.containers[0]!.args, ['--app=controller']);
    // The deploy guide's per-file commands still read these directories without tripping over the Kustomization files.
    await kubectlOk(kubeconfig, ['apply', '--dry-run=server', '-f', 'config/crd/bases/', '-f', 'config/rbac/', '-f', 'deploy/']);

    await kubectlOk(kubeconfig, ['apply', '-k', overlay]);
    const canI = (namespace: string, ...args: string[]) =>
      kubectlOk(kubeconfig, ['auth', 'can-i', `--as=system:serviceaccount:${namespace}:coder-k8s`, ...args]).then((out) => out.trim());
    assert.equal(await canI('team-a', '-n', 'kube-system', 'get', 'configmaps/extension-apiserver-authentication'), 'yes');
    assert.equal(await canI('team-a', '-n', 'coder', 'list', 'codercontrolplanes.coder.com'), 'yes');
    assert.equal(await canI('team-a', 'create', 'tokenreviews.authentication.k8s.io'), 'yes');
    const team = JSON.parse(
      await kubectlOk(kubeconfig, ['-n', 'team-a', 'get', 'deployment', 'coder-k8s', '-o', 'json']),
    ) as ManifestObject;
    assert.equal(team.spec!.template!.spec!.containers[0]!.image, `${image}:v9.8.7`);
  });
});
