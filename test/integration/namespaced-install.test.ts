// The namespaced install (config/namespaced, config/components/namespaced): the operator, under exactly
// the RBAC that install applies and the --watch-namespace flags of its Deployment, reconciles control planes
// and their workspace RBAC in the namespaces it watches, holds no Secret or Pod right anywhere else, and is
// refused nothing by the API server. An overlay adds a second watched namespace as the docs show.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify, parseAllDocuments } from 'yaml';
import { coderControlPlaneClient, type CoderControlPlaneClient } from '../../generated/clients/index.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { readAuditLog } from '../harness/audit.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectl, kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';
import { operatorNamespace, operatorServiceAccount, startOperator, type RunningOperator } from '../harness/operator.ts';
import { eventually } from '../harness/wait.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';

interface Rule {
  apiGroups: string[];
  resources: string[];
}
interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
  spec?: { template?: { spec?: { containers: { args?: string[] }[] } } };
}

const repo = resolve('.');
const watched = 'coder';
const workspaces = 'coder-workspaces';
const unwatched = 'team-elsewhere';
const operatorUser = `system:serviceaccount:${operatorNamespace}:${operatorServiceAccount}`;

/** An overlay as docs/how-to/namespaced-install.md writes it: config/namespaced plus one more watched namespace. */
function writeOverlay(dir: string): void {
  const bindings = ['coder-k8s-namespaced', 'coder-k8s-workspace-grantable'].map((role) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: role === 'coder-k8s-namespaced' ? 'coder-k8s' : role, namespace: workspaces },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: operatorServiceAccount, namespace: operatorNamespace }],
  }));
  writeFileSync(join(dir, 'bindings.yaml'), bindings.map((b) => stringify(b)).join('---\n'));
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: [relative(dir, join(repo, 'config/namespaced')), 'bindings.yaml'],
      patches: [
        {
          target: { group: 'apps', kind: 'Deployment', name: 'coder-k8s' },
          patch: stringify([{ op: 'add', path: '/spec/template/spec/containers/0/args/-', value: `--watch-namespace=${workspaces}` }]),
        },
      ],
    }),
  );
}

describe('namespaced install (config/namespaced)', () => {
  let cp: ControlPlane;
  let admin: string;
  let work: string;
  let objects: ManifestObject[];
  let operator: RunningOperator;
  let client: CoderControlPlaneClient;
  let started: Date;

  before(async () => {
    cp = await startControlPlane();
    admin = cp.adminKubeconfigPath;
    work = mkdtempSync(join(tmpdir(), 'coder-k8s-namespaced-'));
    const overlay = join(work, 'overlay');
    mkdirSync(overlay);
    writeOverlay(overlay);
    objects = parseAllDocuments(await kubectlOk(admin, ['kustomize', overlay])).map((d) => d.toJS() as ManifestObject);
    for (const ns of [watched, workspaces, unwatched]) await kubectlOk(admin, ['create', 'namespace', ns]);
    // Everything the install holds but the Deployment, which the harness runs as a process instead.
    const manifests = join(work, 'install.yaml');
    writeFileSync(
      manifests,
      objects
        .filter((o) => o.kind !== 'Deployment')
        .map((o) => stringify(o))
        .join('---\n'),
    );
    await kubectlOk(admin, ['apply', '-f', manifests]);
    await waitForCrdsEstablished(
      admin,
      objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name),
    );
    await kubectlOk(admin, ['label', 'namespace', workspaces, 'coder.com/workspace-namespace=true']);
    await kubectlOk(admin, ['annotate', 'namespace', workspaces, `coder.com/workspace-control-planes=${watched}/coder`]);
    const args = objects.find((o) => o.kind === 'Deployment')!.spec!.template!.spec!.containers[0]!.args!;
    assert.deepEqual(args, ['--app=controller', `--watch-namespace=${watched}`, `--watch-namespace=${workspaces}`]);
    started = new Date();
    operator = await startOperator(cp, await cp.operatorKubeconfig(operatorNamespace, operatorServiceAccount), {
      args: args.filter((a) => !a.startsWith('--app=')),
    });
    client = coderControlPlaneClient(cp.adminConfig());
  });
  after(async () => {
    await operator?.process.stop();
    await cp?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('binds no ClusterRole but the cluster-scoped one cluster-wide, and its rules name only cluster-scoped resources', async () => {
    const clusterScoped = new Set(
      (await kubectlOk(admin, ['api-resources', '--namespaced=false', '-o', 'name'])).split('\n').filter(Boolean),
    );
    const name = (group: string, resource: string) => (group ? `${resource.split('/')[0]}.${group}` : resource.split('/')[0]!);
    const role = (n: string) => objects.find((o) => o.kind.endsWith('Role') && o.metadata.name === n)!;
    const clusterBound = objects.filter((o) => o.kind === 'ClusterRoleBinding').map((o) => o.roleRef!.name);
    assert.deepEqual(clusterBound.sort(), ['coder-k8s-cluster-scoped', 'system:auth-delegator']);
    assert.equal(
      objects.find((o) => o.metadata.name === 'manager-role'),
      undefined,
      'the cluster-wide manager-role is not installed',
    );
    for (const rule of role('coder-k8s-cluster-scoped').rules!) {
      for (const resource of rule.resources) assert.ok(clusterScoped.has(name(rule.apiGroups[0]!, resource)), resource);
    }
    for (const n of ['coder-k8s-namespaced', 'coder-k8s-operator-namespace']) {
      for (const rule of role(n).rules!) {
        for (const resource of rule.resources) assert.ok(!clusterScoped.has(name(rule.apiGroups[0]!, resource)), `${n}: ${resource}`);
      }
    }
  });

  it('leaves the operator no Secret, Pod or Role right outside the watched namespaces', async () => {
    // can-i exits 1 for "no": read its answer, so that a kubectl that fails otherwise does not count as one.
    const canI = async (...args: string[]) => (await kubectl(admin, ['auth', 'can-i', `--as=${operatorUser}`, ...args])).stdout.trim();
    for (const ns of [watched, workspaces]) assert.equal(await canI('-n', ns, 'get', 'secrets'), 'yes', ns);
    for (const verb of ['get', 'list', 'create']) {
      for (const resource of ['secrets', 'pods', 'roles.rbac.authorization.k8s.io', 'codercontrolplanes.coder.com']) {
        assert.equal(await canI('-n', unwatched, verb, resource), 'no', `${verb} ${resource} in ${unwatched}`);
        assert.equal(await canI('-n', operatorNamespace, verb, resource), 'no', `${verb} ${resource} in ${operatorNamespace}`);
      }
    }
    assert.equal(await canI('list', 'secrets', '--all-namespaces'), 'no');
    assert.equal(await canI('-n', operatorNamespace, 'update', 'leases.coordination.k8s.io'), 'yes');
  });

  it('reconciles a control plane and its workspace RBAC in the watched namespaces, and nothing elsewhere', async () => {
    const withoutAccess = (manifest: CoderControlPlane): CoderControlPlane => ({
      ...manifest,
      spec: { ...manifest.spec, operatorAccess: { disabled: true } },
    });
    await client.create(
      withoutAccess(
        aControlPlane('coder')
          .inNamespace(watched)
          .withRbac({ workspaceNamespaces: [workspaces] })
          .manifest(),
      ),
    );
    await client.create(withoutAccess(aControlPlane('coder').inNamespace(unwatched).manifest()));
    await kubectlOk(admin, ['-n', watched, 'wait', '--for=condition=WorkspaceRBACReady', 'codercontrolplane/coder', '--timeout=60s']);
    for (const ns of [watched, workspaces]) {
      const roles = JSON.parse(await kubectlOk(admin, ['-n', ns, 'get', 'roles', '-o', 'json'])) as { items: unknown[] };
      assert.equal(roles.items.length, 1, `one workspace Role in ${ns}`);
    }
    await kubectlOk(admin, ['-n', watched, 'get', 'deployment/coder', 'service/coder', 'serviceaccount/coder']);
    const other = await client.get(unwatched, 'coder');
    assert.equal(other.status, undefined, 'a control plane in an unwatched namespace is not reconciled');
    assert.equal(other.metadata.finalizers, undefined);
  });

  it('was refused nothing by the API server', async () => {
    // The Lease and the first reconciles are done by now; any 403 would be a rule the install lacks.
    await eventually('the Lease in the operator namespace', async () =>
      (await kubectlOk(admin, ['-n', operatorNamespace, 'get', 'leases', '-o', 'name'])).includes('lease'),
    );
    const requests = await readAuditLog(cp.auditLogFile, { username: operatorUser, since: started });
    assert.ok(requests.length > 0, 'the audit log holds the operator requests');
    const refused = requests.filter((e) => e.responseStatus?.code === 403);
    assert.deepEqual(
      refused.map((e) => `${e.verb} ${e.requestURI}`),
      [],
    );
  });
});
