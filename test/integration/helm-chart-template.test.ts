// The Helm chart (charts/coder-k8s) as `helm lint` and `helm template` see it: lint-clean with the default
// values and with every option set, each rendering accepted by `coder-k8s validate`, holding the objects
// its values ask for, the generated rules and CRDs unchanged, and refusing wrong values with their name.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { chartDir, helm, helmOk } from '../harness/helm.ts';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}
interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
  spec?: {
    replicas?: number;
    template?: {
      spec?: {
        serviceAccountName?: string;
        containers: { image: string; imagePullPolicy?: string; args?: string[]; ports?: { name: string; containerPort: number }[] }[];
        volumes?: { secret?: { secretName: string } }[];
      };
    };
  };
}

const everyOption = 'test/fixtures/helm/every-option.values.yaml';
const aggregatedOnly = 'test/fixtures/helm/aggregated-apiserver.values.yaml';
const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const id = (o: ManifestObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
const parse = (text: string) =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);

function validate(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/coder-k8s.js', 'validate', '-f', file], (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

const rulesOf = (file: string, name: string) => parse(readFileSync(file, 'utf8')).find((o) => o.metadata.name === name)!.rules;
/** The editor and viewer ClusterRoles of each kind (config/rbac/editor_viewer_roles.yaml), in every rendering. */
const userRoles = parse(readFileSync('config/rbac/editor_viewer_roles.yaml', 'utf8')).map(id);
const deploymentOf = (objects: ManifestObject[]) => objects.find((o) => o.kind === 'Deployment')!.spec!.template!.spec!;

describe('helm chart charts/coder-k8s: lint and template', () => {
  let work: string;
  /** `helm template` with these arguments, written to a file that `coder-k8s validate` accepted. */
  const render = async (name: string, ...args: string[]): Promise<ManifestObject[]> => {
    const text = await helmOk(['template', 'coder-k8s', chartDir, '--namespace', 'coder-system', ...args]);
    const file = join(work, `${name}.yaml`);
    writeFileSync(file, text);
    const result = await validate(file);
    assert.equal(result.code, 0, result.output);
    const objects = parse(text);
    // Every document was read as an object; none of the chart's is of the coder.com group.
    assert.match(
      result.output,
      new RegExp(`^0 object\\(s\\) checked, 0 problem\\(s\\), ${objects.length} object\\(s\\) of other API groups skipped$`, 'm'),
    );
    return objects;
  };

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'coder-k8s-helm-template-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  for (const [what, args] of [
    ['the default values', []],
    ['every option set', ['-f', everyOption]],
    ['the aggregated API server alone', ['-f', aggregatedOnly]],
  ] as const) {
    it(`lints clean with ${what}`, async () => {
      const out = await helmOk(['lint', '--strict', chartDir, ...args]);
      assert.match(out, /1 chart\(s\) linted, 0 chart\(s\) failed/);
      assert.doesNotMatch(out, /\[(WARNING|ERROR)\]/);
    });
  }

  it('renders, by default, the operator of this release with --app=all, its cluster-wide RBAC and the aggregated API registration', async () => {
    const objects = await render('default');
    assert.deepEqual(
      objects.map(id).sort(),
      [
        'APIService v1alpha1.aggregation.coder.com',
        'ClusterRole coder-k8s-manager',
        'ClusterRole coder-k8s-metrics-reader',
        'ClusterRole coder-k8s-workspace-grantable',
        'ClusterRoleBinding coder-k8s',
        'ClusterRoleBinding coder-k8s-auth-delegator',
        'ClusterRoleBinding coder-k8s-workspace-grantable',
        'Deployment coder-system/coder-k8s',
        'RoleBinding kube-system/coder-k8s-authentication-reader',
        'Service coder-system/coder-k8s-apiserver',
        'Service coder-system/coder-k8s-metrics',
        'ServiceAccount coder-system/coder-k8s',
        ...userRoles,
      ].sort(),
    );
    const pod = deploymentOf(objects);
    assert.equal(pod.serviceAccountName, 'coder-k8s');
    assert.equal(pod.containers[0]!.image, `ghcr.io/coder/coder-k8s:v${version}`);
    assert.deepEqual(pod.containers[0]!.args, ['--app=all', '--metrics-bind-address=:8443', '--log-level=info']);
    for (const binding of objects.filter((o) => o.kind.endsWith('Binding'))) {
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'coder-k8s', namespace: 'coder-system' }], id(binding));
    }
  });

  it('grants exactly the generated rules: config/rbac/role.yaml cluster-wide, the namespaced roles split the same way', async () => {
    const byName = (objects: ManifestObject[], name: string) =>
      objects.find((o) => o.kind.endsWith('Role') && o.metadata.name === name)!.rules;
    const clusterWide = await render('rules-cluster-wide');
    assert.deepEqual(byName(clusterWide, 'coder-k8s-manager'), rulesOf('config/rbac/role.yaml', 'manager-role'));
    const namespaced = await render('rules-namespaced', '--set', 'app=controller', '--set', 'watchNamespaces={coder}');
    const roles = 'config/components/namespaced/roles.yaml';
    for (const suffix of ['namespaced', 'cluster-scoped', 'operator-namespace']) {
      assert.deepEqual(byName(namespaced, `coder-k8s-${suffix}`), rulesOf(roles, `coder-k8s-${suffix}`), suffix);
    }
  });

  it('ships the editor and viewer roles of config/rbac unchanged', async () => {
    const shipped = (await render('user-roles')).filter((o) => userRoles.includes(id(o)));
    const generated = parse(readFileSync('config/rbac/editor_viewer_roles.yaml', 'utf8'));
    assert.deepEqual(shipped.map((o) => JSON.stringify(o)).sort(), generated.map((o) => JSON.stringify(o)).sort());
  });

  it('ships the generated CRDs unchanged', async () => {
    const text = await helmOk(['show', 'crds', chartDir]);
    const shipped = parse(text).map((o) => JSON.stringify(o));
    const generated = readdirSync('config/crd/bases')
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => parse(readFileSync(join('config/crd/bases', f), 'utf8')).map((o) => JSON.stringify(o)));
    assert.ok(generated.length >= 7);
    assert.deepEqual(shipped.sort(), generated.sort());
  });

  it('with every option: namespaced RBAC in each watched namespace, the flags, image, metrics readers and extra workspace rules', async () => {
    const objects = await render('every-option', '-f', everyOption);
    const ids = objects.map(id);
    assert.deepEqual(
      ids.sort(),
      [
        'ClusterRole ops-operator-cluster-scoped',
        'ClusterRole ops-operator-metrics-reader',
        'ClusterRole ops-operator-namespaced',
        'ClusterRole ops-operator-workspace-grantable',
        'ClusterRole ops-operator-workspace-grantable-rules',
        'ClusterRoleBinding ops-operator-cluster-scoped',
        'ClusterRoleBinding ops-operator-metrics-reader',
        'Deployment coder-system/ops-operator',
        'Role coder-system/ops-operator-operator-namespace',
        'RoleBinding coder-system/ops-operator-operator-namespace',
        'RoleBinding team-a/ops-operator-namespaced',
        'RoleBinding team-a/ops-operator-workspace-grantable',
        'RoleBinding team-b/ops-operator-namespaced',
        'RoleBinding team-b/ops-operator-workspace-grantable',
        'Service coder-system/ops-operator-metrics',
        'ServiceAccount coder-system/ops-operator',
        ...userRoles,
      ].sort(),
    );
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    assert.equal(deployment.spec!.replicas, 2);
    const container = deploymentOf(objects).containers[0]!;
    assert.equal(container.image, 'registry.example.com/mirror/coder-k8s:v9.8.7');
    assert.equal(container.imagePullPolicy, 'Always');
    assert.deepEqual(container.args, [
      '--app=controller',
      '--watch-namespace=team-a',
      '--watch-namespace=team-b',
      '--metrics-bind-address=:9443',
      '--log-level=debug',
      '--max-concurrent-reconciles=20',
    ]);
    assert.deepEqual(
      container.ports!.map((p) => `${p.name}:${p.containerPort}`),
      ['health:8081', 'metrics:9443'],
    );
    const reader = objects.find((o) => id(o) === 'ClusterRoleBinding ops-operator-metrics-reader')!;
    assert.deepEqual(reader.subjects, [{ kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: 'monitoring' }]);
    const extra = objects.find((o) => o.metadata.name === 'ops-operator-workspace-grantable-rules')!;
    assert.equal(extra.metadata.labels!['coder.com/aggregate-to-workspace-grantable'], 'true');
    assert.deepEqual(extra.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
  });

  it('adds a ServiceMonitor only when the cluster serves monitoring.coreos.com/v1', async () => {
    const withApi = await render('service-monitor', '-f', everyOption, '--api-versions', 'monitoring.coreos.com/v1/ServiceMonitor');
    const monitor = withApi.find((o) => o.kind === 'ServiceMonitor') as
      (ManifestObject & { spec: { endpoints: { port: string; scheme: string; interval: string }[] } }) | undefined;
    assert.ok(monitor, 'a ServiceMonitor with the API served');
    assert.equal(monitor.metadata.labels!.release, 'kube-prometheus-stack');
    assert.deepEqual(
      monitor.spec.endpoints.map((e) => [e.port, e.scheme, e.interval]),
      [['metrics', 'https', '15s']],
    );
    const off = await render(
      'service-monitor-off',
      '--api-versions',
      'monitoring.coreos.com/v1/ServiceMonitor',
      '--set',
      'metrics.serviceMonitor.enabled=false',
    );
    assert.equal(
      off.find((o) => o.kind === 'ServiceMonitor'),
      undefined,
      'none when turned off',
    );
    const noMetrics = await render(
      'metrics-off',
      '--api-versions',
      'monitoring.coreos.com/v1/ServiceMonitor',
      '--set',
      'metrics.enabled=false',
    );
    assert.deepEqual(noMetrics.filter((o) => o.metadata.name.includes('metrics') || o.kind === 'ServiceMonitor').map(id), []);
    assert.ok(deploymentOf(noMetrics).containers[0]!.args!.includes('--metrics-bind-address=0'));
  });

  it('runs the aggregated API server alone with its Coder, the token mounted from a Secret, and registers it', async () => {
    const objects = await render('aggregated-apiserver', '-f', aggregatedOnly);
    const pod = deploymentOf(objects);
    assert.deepEqual(pod.containers[0]!.args, [
      '--app=aggregated-apiserver',
      '--metrics-bind-address=:8443',
      '--log-level=info',
      '--coder-url=https://coder.example.com',
      '--coder-session-token-file=/var/run/coder-k8s/coder-session-token/session-token',
      '--coder-namespace=coder',
    ]);
    assert.deepEqual(
      pod.volumes!.map((v) => v.secret?.secretName),
      ['coder-owner-token'],
    );
    const ids = objects.map(id);
    for (const wanted of [
      'APIService v1alpha1.aggregation.coder.com',
      'Service coder-system/coder-k8s-apiserver',
      'ClusterRoleBinding coder-k8s-auth-delegator',
    ]) {
      assert.ok(ids.includes(wanted), wanted);
    }
    const controllerOnly = await render('controller-only', '--set', 'app=controller');
    assert.deepEqual(
      controllerOnly.filter((o) => /apiserver|APIService|auth/.test(id(o))).map(id),
      [],
      'no aggregated API objects with app=controller',
    );
  });

  for (const [values, message] of [
    [['--set', 'app=both'], /app.*(all|controller|aggregated-apiserver)/],
    [['--set', 'watchNamespaces={coder}'], /watchNamespaces is set, so app must be controller/],
    [['--set', 'app=aggregated-apiserver'], /aggregatedApi\.coderUrl/],
    [['--set', 'metrics.port=metrics'], /metrics.*port/],
    [['--set', 'watchNamespaces={Team_A}', '--set', 'app=controller'], /watchNamespaces/],
    [['--set', 'replica=2'], /replica/],
  ] as const) {
    it(`refuses ${values.filter((v) => v !== '--set').join(' ')}, naming the value`, async () => {
      const result = await helm(['template', 'coder-k8s', chartDir, ...values]);
      assert.notEqual(result.code, 0, result.stdout);
      assert.match(result.stderr, message);
    });
  }
});
