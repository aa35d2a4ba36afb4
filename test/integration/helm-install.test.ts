// The Helm chart installed with `helm install` into a real control plane: the operator, run as a process
// with the token of the ServiceAccount the chart made (the image cannot run here) and the flags of the
// chart's Deployment, reconciles the sample under exactly the chart's RBAC; `helm upgrade` changes replicas,
// flags and the watched namespaces (namespaced RBAC then); `helm uninstall` leaves none of the release's
// objects but the CRDs, which Helm keeps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readAuditLog } from '../harness/audit.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { chartDir, helmOk } from '../harness/helm.ts';
import { kubectl, kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';
import { startOperator, type RunningOperator } from '../harness/operator.ts';
import { eventually } from '../harness/wait.ts';

const release = 'coder-k8s';
const namespace = 'coder-system';
const sampleNamespace = 'coder';
const operatorUser = `system:serviceaccount:${namespace}:coder-k8s`;
/** The kinds a release of the chart may hold, besides its CRDs. */
const releaseKinds =
  'deployments,services,serviceaccounts,roles,rolebindings,clusterroles,clusterrolebindings,apiservices,secrets,configmaps';

interface Deployment {
  spec: { replicas: number; template: { spec: { serviceAccountName: string; containers: { args: string[] }[] } } };
}

describe('helm install, upgrade and uninstall of charts/coder-k8s', () => {
  let cp: ControlPlane;
  let admin: string;
  let operator: RunningOperator | undefined;
  let crdNames: string[];

  const deployment = async () =>
    JSON.parse(await kubectlOk(admin, ['-n', namespace, 'get', 'deployment', 'coder-k8s', '-o', 'json'])) as Deployment;

  /** The operator with the flags of the Deployment the release holds, under the token of its ServiceAccount. */
  const runAsDeployed = async (): Promise<Date> => {
    await operator?.process.stop();
    const pod = (await deployment()).spec.template.spec;
    const labels = JSON.parse(
      await kubectlOk(admin, ['-n', namespace, 'get', 'serviceaccount', pod.serviceAccountName, '-o', 'jsonpath={.metadata.labels}']),
    ) as Record<string, string>;
    assert.equal(labels['app.kubernetes.io/managed-by'], 'Helm', 'the ServiceAccount is the chart’s');
    const args = pod.containers[0]!.args;
    const app = args.find((a) => a.startsWith('--app='))!.slice('--app='.length);
    // The harness serves metrics and probes on loopback ports of its own.
    const flags = args.filter((a) => !a.startsWith('--app=') && !a.startsWith('--metrics-bind-address='));
    const started = new Date();
    operator = await startOperator(cp, await cp.operatorKubeconfig(namespace, pod.serviceAccountName), { app, args: flags });
    return started;
  };

  const refusedSince = async (since: Date) =>
    (await readAuditLog(cp.auditLogFile, { username: operatorUser, since }))
      .filter((e) => e.responseStatus?.code === 403)
      .map((e) => `${e.verb} ${e.requestURI}`);

  const canI = async (...args: string[]) => (await kubectl(admin, ['auth', 'can-i', `--as=${operatorUser}`, ...args])).stdout.trim();

  before(async () => {
    cp = await startControlPlane();
    admin = cp.adminKubeconfigPath;
    await kubectlOk(admin, ['create', 'namespace', sampleNamespace]);
  });
  after(async () => {
    await operator?.process.stop();
    await cp?.stop();
  });

  it('renders, with the default values and with every option, objects the API server accepts (server-side dry run)', async () => {
    for (const ns of ['team-a', 'team-b']) await kubectlOk(admin, ['create', 'namespace', ns]);
    for (const values of [
      [],
      ['-f', 'test/fixtures/helm/every-option.values.yaml'],
      ['-f', 'test/fixtures/helm/aggregated-apiserver.values.yaml'],
    ]) {
      const rendered = await helmOk(['template', release, chartDir, '--namespace', 'default', ...values]);
      const out = await kubectlOk(admin, ['apply', '--dry-run=server', '-f', '-'], rendered);
      assert.match(out, /deployment\.apps\/\S+ created \(server dry run\)/, values.join(' '));
    }
  });

  it('installs the CRDs, the RBAC and the operator with helm install', async () => {
    const out = await helmOk(
      ['install', release, chartDir, '--namespace', namespace, '--create-namespace', '--set', 'app=controller'],
      admin,
    );
    assert.match(out, /STATUS: deployed/);
    crdNames = (await kubectlOk(admin, ['get', 'crd', '-o', 'name'])).split('\n').filter((n) => n.endsWith('.coder.com'));
    assert.ok(crdNames.length >= 7, crdNames.join(', '));
    await waitForCrdsEstablished(
      admin,
      crdNames.map((n) => n.replace(/^.*\//, '')),
    );
    assert.equal(await canI('list', 'secrets', '--all-namespaces'), 'yes');
  });

  it('runs the operator under the installed RBAC: it reconciles the sample and is refused nothing', async () => {
    const started = await runAsDeployed();
    await kubectlOk(admin, ['apply', '-f', 'config/samples/coder_v1alpha1_codercontrolplane.yaml']);
    await kubectlOk(admin, [
      '-n',
      sampleNamespace,
      'wait',
      '--for=jsonpath={.status.observedGeneration}=1',
      'codercontrolplane/coder',
      '--timeout=60s',
    ]);
    await kubectlOk(admin, ['-n', sampleNamespace, 'get', 'deployment/coder', 'service/coder', 'serviceaccount/coder']);
    await eventually('the leader Lease', async () => (await kubectlOk(admin, ['-n', namespace, 'get', 'leases', '-o', 'name'])).trim());
    assert.deepEqual(await refusedSince(started), []);
  });

  it('upgrades to two replicas, another flag and a watched namespace with helm upgrade, and the operator still reconciles', async () => {
    const out = await helmOk(
      [
        'upgrade',
        release,
        chartDir,
        '--namespace',
        namespace,
        '--set',
        'app=controller',
        '--set',
        'replicas=2',
        '--set',
        'extraArgs={--max-concurrent-reconciles=3}',
        '--set',
        `watchNamespaces={${sampleNamespace}}`,
      ],
      admin,
    );
    assert.match(out, /REVISION: 2/);
    const spec = (await deployment()).spec;
    assert.equal(spec.replicas, 2);
    assert.deepEqual(spec.template.spec.containers[0]!.args, [
      '--app=controller',
      `--watch-namespace=${sampleNamespace}`,
      '--metrics-bind-address=:8443',
      '--log-level=info',
      '--max-concurrent-reconciles=3',
    ]);
    // The cluster-wide role gave way to the namespaced one.
    const gone = await kubectl(admin, ['get', 'clusterrole', 'coder-k8s-manager']);
    assert.notEqual(gone.code, 0, 'the cluster-wide ClusterRole is removed');
    await kubectlOk(admin, ['-n', sampleNamespace, 'get', 'rolebinding', 'coder-k8s-namespaced', 'coder-k8s-workspace-grantable']);
    assert.equal(await canI('list', 'secrets', '--all-namespaces'), 'no');
    assert.equal(await canI('-n', sampleNamespace, 'list', 'secrets'), 'yes');

    const started = await runAsDeployed();
    await kubectlOk(admin, ['-n', sampleNamespace, 'patch', 'codercontrolplane/coder', '--type=merge', '-p', '{"spec":{"replicas":2}}']);
    await eventually('the control plane Deployment scaled by the upgraded operator', async () => {
      const replicas = await kubectlOk(admin, ['-n', sampleNamespace, 'get', 'deployment/coder', '-o', 'jsonpath={.spec.replicas}']);
      return replicas === '2';
    });
    await kubectlOk(admin, [
      '-n',
      sampleNamespace,
      'wait',
      '--for=jsonpath={.status.observedGeneration}=2',
      'codercontrolplane/coder',
      '--timeout=60s',
    ]);
    assert.deepEqual(await refusedSince(started), []);
  });

  it('uninstalls with helm uninstall, leaving no object of the release but the CRDs', async () => {
    await operator?.process.stop();
    operator = undefined;
    const out = await helmOk(['uninstall', release, '--namespace', namespace, '--wait'], admin);
    assert.match(out, /release "coder-k8s" uninstalled/);
    const left = await kubectlOk(admin, [
      'get',
      releaseKinds,
      '--all-namespaces',
      '-l',
      `app.kubernetes.io/instance=${release}`,
      '-o',
      'name',
    ]);
    assert.equal(left.trim(), '', 'objects of the release left behind');
    // Helm's own record of the release goes too.
    assert.equal((await kubectlOk(admin, ['-n', namespace, 'get', 'secrets', '-l', 'owner=helm', '-o', 'name'])).trim(), '');
    assert.equal(await canI('-n', sampleNamespace, 'list', 'secrets'), 'no');
    const kept = (await kubectlOk(admin, ['get', 'crd', '-o', 'name'])).split('\n').filter((n) => n.endsWith('.coder.com'));
    assert.deepEqual(kept.sort(), [...crdNames].sort(), 'the CRDs stay');
    await kubectlOk(admin, ['-n', sampleNamespace, 'get', 'codercontrolplane/coder']);
  });
});
