// The aggregated API server through the real aggregator: kubectl → kube-apiserver → the APIService
// (an ExternalName Service to loopback, as Endpoints refuse loopback addresses) → the operator's HTTPS
// port (--app=aggregated-apiserver with the Go original's --coder-* flags) → the Coder API double.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { seedRunningWorkspaces } from '../harness/coder-api-double/workspace-world.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { directRequest } from '../harness/direct-request.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import {
  apiServiceName as apiService,
  openApiV3Listed,
  registerApiService,
  startAggregatedApi,
  waitApiServiceAvailable,
} from '../harness/aggregated-api.ts';
import { operatorNamespace, type RunningOperator } from '../harness/operator.ts';
import { grantsOf, unusedGrants, usedGrants } from '../harness/rbac-usage.ts';
import { eventually } from '../harness/wait.ts';
import { permissions as aggregatedPermissions } from '../../src/aggregated/permissions.ts';

const token = 'aggregated0-operatortokenvalue0000000';
const served = 'coder';

let cp: ControlPlane;
let coder: CoderApiDouble;
let operator: RunningOperator;
let port: number;
let admin: string;

/** The workspace named `name` in the double that is not deleted. */
const liveWorkspace = (name: string) => coder.state.world.workspaces.find((w) => !w.deleted && w.workspace.name === name);
const latestTransition = (name: string) => liveWorkspace(name)?.builds[0]?.transition;

/** A request straight to the operator's port, not through kube-apiserver. */
const direct = (path: string, headers: Record<string, string> = {}) => directRequest(port, path, { headers });

describe('aggregated API through the kube-apiserver aggregator', { timeout: 300_000 }, () => {
  before(async () => {
    [cp, coder] = await Promise.all([startControlPlane({ controllers: true }), startCoderApiDouble({ tokens: [token] })]);
    admin = cp.adminKubeconfigPath;
    await kubectlOk(admin, ['create', 'namespace', served]);
    seedRunningWorkspaces(coder.state.world, coder.state.users, {
      organization: 'acme',
      template: 'starter',
      owner: 'alice',
      workspaces: ['dev', 'data'],
    });
    seedRunningWorkspaces(coder.state.world, coder.state.users, {
      organization: 'acme',
      template: 'gpu',
      owner: 'bob',
      workspaces: ['train'],
    });
    ({ operator, port } = await startAggregatedApi(cp, coder, token, served));
  });

  after(async () => {
    await operator?.process.stop();
    await Promise.all([cp?.stop(), coder?.stop()]);
  });

  it('is Available with the caBundle the operator manages, not insecureSkipTLSVerify', async () => {
    const spec = await eventually('the caBundle', async () => {
      const s = JSON.parse(await kubectlOk(admin, ['get', 'apiservice', apiService, '-o', 'json'])).spec;
      return s.caBundle ? s : undefined;
    });
    assert.notEqual(spec.insecureSkipTLSVerify, true);
    const secret = JSON.parse(await kubectlOk(admin, ['get', 'secret', '-n', operatorNamespace, 'coder-k8s-apiserver-tls', '-o', 'json']));
    assert.equal(spec.caBundle, secret.data['ca.crt']);
    // The log names the serving Secret; what the Secret holds never reaches it.
    const log = readFileSync(operator.logFile, 'utf8');
    const written = log.split('\n').find((l) => l.includes('new serving CA and certificate written'));
    assert.ok(written, `no line about the serving Secret in the operator log:\n${log.slice(-4000)}`);
    assert.deepEqual(JSON.parse(written).secret, { namespace: operatorNamespace, name: 'coder-k8s-apiserver-tls' });
    for (const value of Object.values<string>(secret.data)) {
      assert.ok(!log.includes(value) && !log.includes(Buffer.from(value, 'base64').toString('utf8').split('\n')[1]!));
    }
  });

  it('shows in discovery and explains its fields', async () => {
    const resources = await kubectlOk(admin, ['api-resources', '--api-group=aggregation.coder.com', '-o', 'wide']);
    assert.match(
      resources,
      /coderworkspaces\s.*aggregation\.coder\.com\/v1alpha1\s+true\s+CoderWorkspace\s+create,delete,get,list,patch,update,watch/,
    );
    assert.match(resources, /codertemplates\s/);
    const cache = await openApiV3Listed(cp);
    const explain = await kubectlOk(admin, ['explain', ...cache, 'coderworkspaces.spec']);
    assert.match(explain, /running/);
    assert.match(explain, /templateName/);
  });

  it('lists with columns across namespaces, by label, and by field', async () => {
    const table = await kubectlOk(admin, ['get', 'coderworkspaces', '-A']);
    assert.match(table, /NAMESPACE\s+NAME\s+TEMPLATE\s+RUNNING\s+BUILD\s+AGE/);
    assert.match(table, new RegExp(`${served}\\s+acme\\.alice\\.dev\\s+starter\\s+true\\s+running`));
    assert.match(table, /acme\.bob\.train\s+gpu/);
    const byOwner = await kubectlOk(admin, ['get', 'coderworkspaces', '-n', served, '-l', 'aggregation.coder.com/owner=bob', '-o', 'name']);
    assert.equal(byOwner.trim(), 'coderworkspace.aggregation.coder.com/acme.bob.train');
    const byName = await kubectlOk(admin, [
      'get',
      'coderworkspaces',
      '-n',
      served,
      '--field-selector',
      'metadata.name=acme.alice.data',
      '-o',
      'name',
    ]);
    assert.equal(byName.trim(), 'coderworkspace.aggregation.coder.com/acme.alice.data');
    const list = JSON.parse(
      await kubectlOk(admin, ['get', '--raw', `/apis/aggregation.coder.com/v1alpha1/namespaces/${served}/codertemplates`]),
    );
    assert.ok(list.metadata.resourceVersion && list.metadata.resourceVersion !== '0');
    assert.deepEqual(list.items.map((t: { metadata: { name: string } }) => t.metadata.name).sort(), ['acme.gpu', 'acme.starter']);
  });

  it('watches, patches (merge, JSON, strategic) and applies server-side', async () => {
    const watch = spawn('kubectl', ['--kubeconfig', admin, 'get', 'coderworkspaces', '-n', served, '-w', '--output-watch-events']);
    let seen = '';
    let errors = '';
    watch.stdout.on('data', (c) => (seen += c));
    watch.stderr.on('data', (c) => (errors += c));
    try {
      const shown = () => `kubectl -w printed:\n${seen}\nstderr:\n${errors}`;
      await eventually('the watch to list', async () => /acme\.alice\.dev/.test(seen)).catch((err: Error) =>
        assert.fail(`${err.message}\n${shown()}`),
      );
      await kubectlOk(admin, [
        'patch',
        'coderworkspace',
        'acme.alice.dev',
        '-n',
        served,
        '--type=merge',
        '-p',
        '{"spec":{"running":false}}',
      ]);
      await eventually('a MODIFIED event', async () => /MODIFIED\s+acme\.alice\.dev\s/.test(seen)).catch((err: Error) =>
        assert.fail(`${err.message}\n${shown()}`),
      );
      assert.match(seen, /MODIFIED\s+acme\.alice\.dev\s+starter\s+false\s+stopped/);
      assert.equal(errors, '');
    } finally {
      watch.kill();
    }
    assert.equal(latestTransition('dev'), 'stop');
    await kubectlOk(admin, [
      'patch',
      'coderworkspace',
      'acme.alice.dev',
      '-n',
      served,
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/spec/running","value":true}]',
    ]);
    assert.equal(latestTransition('dev'), 'start');
    await kubectlOk(admin, ['patch', 'coderworkspace', 'acme.alice.dev', '-n', served, '-p', '{"spec":{"running":false}}']);
    assert.equal(latestTransition('dev'), 'stop');
    const immutable = await kubectl(admin, [
      'patch',
      'coderworkspace',
      'acme.alice.dev',
      '-n',
      served,
      '--type=merge',
      '-p',
      '{"spec":{"templateName":"gpu"}}',
    ]);
    assert.notEqual(immutable.code, 0);
    assert.match(immutable.stderr, /only supports changing spec.running/);
    const manifest = {
      apiVersion: 'aggregation.coder.com/v1alpha1',
      kind: 'CoderWorkspace',
      metadata: { name: 'acme.alice.applied', namespace: served },
      spec: { organization: 'acme', templateName: 'starter', running: true },
    };
    await kubectlOk(admin, ['apply', '--server-side', '--field-manager=test', '-f', '-'], JSON.stringify(manifest));
    assert.equal(liveWorkspace('applied')?.workspace.owner_name, 'alice');
    const again = await kubectlOk(
      admin,
      ['apply', '--server-side', '--field-manager=test', '-f', '-'],
      JSON.stringify({ ...manifest, spec: { ...manifest.spec, running: false } }),
    );
    assert.match(again, /serverside-applied/);
    assert.equal(latestTransition('applied'), 'stop');
  });

  it('creates, deletes, and kubectl wait --for=delete returns once Coder no longer has it', async () => {
    const manifest = {
      apiVersion: 'aggregation.coder.com/v1alpha1',
      kind: 'CoderWorkspace',
      metadata: { name: 'acme.alice.applied', namespace: served },
      spec: { organization: 'acme', templateName: 'starter', running: true },
    };
    if (!liveWorkspace('applied')) await kubectlOk(admin, ['create', '-f', '-'], JSON.stringify(manifest));
    await kubectlOk(admin, ['delete', 'coderworkspace', 'acme.alice.applied', '-n', served, '--wait=false']);
    await kubectlOk(admin, ['wait', '--for=delete', 'coderworkspace/acme.alice.applied', '-n', served, '--timeout=60s']);
    assert.equal(liveWorkspace('applied'), undefined);
    const missing = await kubectl(admin, ['get', 'coderworkspace', 'acme.alice.applied', '-n', served]);
    assert.match(missing.stderr, /NotFound|not found/);
  });

  it('answers 403 to a user without RBAC, through the aggregator', async () => {
    const nobody = await cp.userKubeconfig('nobody');
    const denied = await kubectl(nobody, ['get', 'coderworkspaces', '-n', served]);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /forbidden/i);
  });

  it('answers 401 to direct requests without a client certificate or with forged X-Remote-User', async () => {
    const path = `/apis/aggregation.coder.com/v1alpha1/namespaces/${served}/coderworkspaces`;
    const before = coder.requests.length;
    assert.equal((await direct(path)).status, 401);
    assert.equal((await direct(path, { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' })).status, 401);
    assert.equal((await direct('/readyz')).status, 200);
    assert.equal(coder.requests.length, before, 'no Coder call for a refused request');
  });

  it('answers 403 to a valid bearer token the SubjectAccessReview denies', async () => {
    const kubeconfig = parseYaml(readFileSync(await cp.operatorKubeconfig('default', 'no-rights'), 'utf8'));
    const saToken: string = kubeconfig.users[0].user.token ?? readFileSync(kubeconfig.users[0].user.tokenFile, 'utf8').trim();
    const path = `/apis/aggregation.coder.com/v1alpha1/namespaces/${served}/coderworkspaces`;
    const answer = await direct(path, { Authorization: `Bearer ${saToken}`, 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' });
    assert.equal(answer.status, 403);
    assert.match(JSON.parse(answer.body).message, /system:serviceaccount:default:no-rights/);
  });

  it('deleting the namespace keeps every workspace and template in Coder', async () => {
    const world = coder.state.world;
    const live = () => world.workspaces.filter((w) => !w.deleted).length;
    const [workspaces, templates] = [live(), world.templates.length];
    const deletesSent = () =>
      coder.requests.filter(
        (r) =>
          r.operationId === 'deleteTemplate' ||
          (r.operationId === 'createWorkspaceBuild' && (r.body as { transition?: string })?.transition === 'delete'),
      ).length;
    const deletesBefore = deletesSent();
    const deleted = await kubectl(admin, ['delete', 'namespace', served, '--timeout=90s']);
    if (deleted.code !== 0) {
      const ns = await kubectl(admin, ['get', 'namespace', served, '-o', 'jsonpath={.status}']);
      const log = readFileSync(operator.logFile, 'utf8')
        .split('\n')
        .filter((l) => /namespaces\/coder\/|"level":(40|50)/.test(l));
      assert.fail(`namespace ${served} was not deleted: ${deleted.stderr}\nstatus: ${ns.stdout}\noperator:\n${log.slice(-30).join('\n')}`);
    }
    assert.equal(live(), workspaces);
    assert.equal(world.templates.length, templates);
    assert.equal(deletesSent(), deletesBefore, 'no delete reached Coder while the namespace was deleted');
  });

  it('sets the caBundle of an APIService applied after it started, as soon as it is applied (watched, not polled)', async () => {
    const ca = JSON.parse(await kubectlOk(admin, ['get', 'secret', '-n', operatorNamespace, 'coder-k8s-apiserver-tls', '-o', 'json'])).data[
      'ca.crt'
    ];
    // Twice in a row, each within 20 s: a poll every 60 s could at best catch one of them.
    for (const round of [1, 2]) {
      await kubectlOk(admin, ['delete', 'apiservice', apiService]);
      await registerApiService(cp, port);
      await eventually(
        `the caBundle of the APIService applied again (round ${round})`,
        async () => JSON.parse(await kubectlOk(admin, ['get', 'apiservice', apiService, '-o', 'json'])).spec.caBundle === ca,
        { timeoutMs: 20_000 },
      );
    }
    await waitApiServiceAvailable(cp, operator);
    assert.equal((await kubectl(admin, ['get', 'coderworkspaces', '-A'])).code, 0);
  });

  it('leaves the caBundle of an APIService annotated coder.com/manage-ca-bundle: "false" alone, and manages it once the annotation goes', async () => {
    await kubectlOk(admin, ['delete', 'apiservice', apiService]);
    const logLength = readFileSync(operator.logFile, 'utf8').length;
    const optedOut = parseYaml(readFileSync('deploy/apiserver-apiservice.yaml', 'utf8'));
    optedOut.metadata.annotations = { 'coder.com/manage-ca-bundle': 'false' };
    optedOut.spec.service.port = port;
    await kubectlOk(admin, ['apply', '-f', '-'], JSON.stringify(optedOut));
    await eventually('the operator to see the annotation', async () =>
      readFileSync(operator.logFile, 'utf8').slice(logLength).includes('caBundle left alone'),
    );
    const spec = JSON.parse(await kubectlOk(admin, ['get', 'apiservice', apiService, '-o', 'json'])).spec;
    assert.equal(spec.caBundle, undefined);
    await kubectlOk(admin, ['annotate', 'apiservice', apiService, 'coder.com/manage-ca-bundle-']);
    await eventually(
      'the caBundle once the annotation is gone',
      async () => !!JSON.parse(await kubectlOk(admin, ['get', 'apiservice', apiService, '-o', 'json'])).spec.caBundle,
      { timeoutMs: 20_000 },
    );
    await waitApiServiceAvailable(cp, operator);
  });

  it('used every verb src/aggregated/permissions.ts grants, as the audit log shows', async () => {
    const used = usedGrants(
      await cp.auditEvents({ username: 'system:serviceaccount:coder-system:coder-k8s', stages: ['ResponseStarted', 'ResponseComplete'] }),
    );
    assert.deepEqual(unusedGrants(grantsOf(aggregatedPermissions), used, new Map()), []);
  });
});
