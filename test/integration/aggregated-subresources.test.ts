// The subresources and template sources of the aggregated API through the real aggregator (kubectl →
// kube-apiserver → aggregator → the operator → the Coder API double's one world): coderworkspaces/start,
// /stop and /log, codertemplates/promote, codertemplateversions, and codertemplates spec.files
// (reference aggregated-api-and-mcp.md §2.1, §2.7, §2.8, §2.13).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readTar } from '../../src/aggregated/template-archive.ts';
import { startAggregatedApi } from '../harness/aggregated-api.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import {
  seedOrganization,
  seedTemplateWithVersion,
  seedUser,
  seedWorkspace,
  type StoredWorkspace,
} from '../harness/coder-api-double/workspace-world.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import type { RunningOperator } from '../harness/operator.ts';

const token = 'aggregated2-operatortokenvalue0000000';
const served = 'coder';
const base = `/apis/aggregation.coder.com/v1alpha1/namespaces/${served}`;

let cp: ControlPlane;
let coder: CoderApiDouble;
let operator: RunningOperator;
let admin: string;
let dev: StoredWorkspace;

/** POST through kube-apiserver (kubectl create --raw), parsed; a failure gives kubectl's stderr. */
async function post(path: string, body: object): Promise<{ ok: true; json: any } | { ok: false; stderr: string }> {
  const result = await kubectl(admin, ['create', '--raw', path, '-f', '-'], JSON.stringify(body));
  return result.code === 0 ? { ok: true, json: JSON.parse(result.stdout) } : { ok: false, stderr: result.stderr };
}

async function postOk(path: string, body: object): Promise<any> {
  const answer = await post(path, body);
  if (!answer.ok) assert.fail(`POST ${path} failed: ${answer.stderr}`);
  return answer.json;
}

/** One read of the workspace by id in the double: its latest build moves one step on, as Coder's would with time. */
async function readInCoder(id: string): Promise<void> {
  const res = await fetch(`${coder.url}/api/v2/workspaces/${id}`, { headers: { 'Coder-Session-Token': token } });
  assert.equal(res.status, 200);
}

describe('aggregated subresources and template sources through the aggregator', { timeout: 300_000 }, () => {
  before(async () => {
    [cp, coder] = await Promise.all([startControlPlane({ controllers: true }), startCoderApiDouble({ tokens: [token] })]);
    admin = cp.adminKubeconfigPath;
    await kubectlOk(admin, ['create', 'namespace', served]);
    const world = coder.state.world;
    const org = seedOrganization(world, 'acme');
    const { template } = seedTemplateWithVersion(world, org, { template: 'starter', version: 'v1' });
    seedTemplateWithVersion(world, org, { template: 'other', version: 'v1' });
    dev = seedWorkspace(world, { owner: seedUser(coder.state.users, 'alice'), template, name: 'dev', transition: 'stop' });
    ({ operator } = await startAggregatedApi(cp, coder, token, served, {
      env: { CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL: '100ms' },
    }));
  });

  after(async () => {
    await operator?.process.stop();
    await Promise.all([cp?.stop(), coder?.stop()]);
  });

  it('lists the subresources and the read-only codertemplateversions in discovery', async () => {
    const list = JSON.parse(await kubectlOk(admin, ['get', '--raw', '/apis/aggregation.coder.com/v1alpha1']));
    const verbs = Object.fromEntries(list.resources.map((r: { name: string; verbs: string[] }) => [r.name, r.verbs.join(',')]));
    assert.deepEqual(
      {
        log: verbs['coderworkspaces/log'],
        start: verbs['coderworkspaces/start'],
        stop: verbs['coderworkspaces/stop'],
        promote: verbs['codertemplates/promote'],
        versions: verbs.codertemplateversions,
      },
      { log: 'get', start: 'create', stop: 'create', promote: 'create', versions: 'get,list' },
    );
  });

  it('starts and stops a workspace once, reporting Queued, InProgress, WouldQueue and Unchanged; 409 while another build runs', async () => {
    const start = `${base}/coderworkspaces/acme.alice.dev/start`;
    const stop = `${base}/coderworkspaces/acme.alice.dev/stop`;
    const queued = await postOk(start, {});
    assert.equal(queued.kind, 'CoderWorkspaceTransition');
    assert.deepEqual(
      { ...queued.status, buildID: undefined },
      { transition: 'start', outcome: 'Queued', dryRun: false, buildID: undefined, buildNumber: 2, jobStatus: 'pending' },
    );
    assert.equal(dev.builds[0]!.id, queued.status.buildID);
    assert.equal(dev.builds[0]!.transition, 'start');

    const again = await postOk(start, { kind: 'CoderWorkspaceTransition', apiVersion: 'aggregation.coder.com/v1alpha1' });
    assert.equal(again.status.outcome, 'InProgress');
    const busy = await post(stop, {});
    assert.ok(!busy.ok);
    assert.match(busy.stderr, /cannot stop workspace "acme\.alice\.dev": its start build is pending/);
    assert.equal(dev.builds.length, 2, 'no build was queued by InProgress or the refused stop');

    await readInCoder(dev.workspace.id);
    assert.equal(dev.builds[0]!.job.status, 'succeeded');
    assert.equal((await postOk(start, {})).status.outcome, 'Unchanged');
    const dry = await postOk(`${stop}?dryRun=All`, {});
    assert.deepEqual([dry.status.outcome, dry.status.dryRun], ['WouldQueue', true]);
    assert.equal(dev.builds.length, 2, 'a dry run queues nothing');
    const stopped = await postOk(stop, {});
    assert.deepEqual([stopped.status.outcome, stopped.status.buildNumber], ['Queued', 3]);
    assert.equal(dev.builds[0]!.transition, 'stop');
  });

  it('answers the latest build log as text, cut at limitBytes; 422 for limitBytes=0', async () => {
    const buildId = dev.builds[0]!.id;
    coder.state.world.buildLogs.set(buildId, [
      { id: 1, created_at: '2026-12-01T10:00:00.123Z', log_source: 'provisioner', log_level: 'info', stage: 'Planning', output: 'plan ok' },
      { id: 2, created_at: '2026-12-01T10:00:01Z', log_source: 'provisioner_daemon', log_level: 'error', stage: '', output: 'boom' },
    ]);
    const text = await kubectlOk(admin, ['get', '--raw', `${base}/coderworkspaces/acme.alice.dev/log`]);
    assert.equal(text, '2026-12-01T10:00:00Z [info] [Planning] plan ok\n2026-12-01T10:00:01Z [error] [provisioner] boom\n');
    assert.equal(
      await kubectlOk(admin, ['get', '--raw', `${base}/coderworkspaces/acme.alice.dev/log?limitBytes=20`]),
      '2026-12-01T10:00:00Z',
    );
    const invalid = await kubectl(admin, ['get', '--raw', `${base}/coderworkspaces/acme.alice.dev/log?limitBytes=0`]);
    assert.notEqual(invalid.code, 0);
    assert.match(invalid.stderr, /limitBytes: must be a whole number of at least 1/);
  });

  it("promotes an imported version: Promoted, then AlreadyActive; 422 for a non-UUID, 400 for another template's version", async () => {
    const world = coder.state.world;
    const starter = world.templates.find((t) => t.name === 'starter')!;
    const other = world.templates.find((t) => t.name === 'other')!;
    const v2 = { ...world.templateVersions.find((v) => v.id === starter.active_version_id)!, id: crypto.randomUUID(), name: 'v2' };
    world.templateVersions.push(v2);
    const promote = `${base}/codertemplates/acme.starter/promote`;
    const promoted = await postOk(promote, { spec: { versionID: v2.id } });
    assert.deepEqual(promoted.status, { result: 'Promoted', activeVersionID: v2.id });
    assert.equal(starter.active_version_id, v2.id);
    assert.equal((await postOk(promote, { spec: { versionID: v2.id } })).status.result, 'AlreadyActive');
    const notUuid = await post(promote, { spec: { versionID: 'v2' } });
    assert.ok(!notUuid.ok);
    assert.match(notUuid.stderr, /spec\.versionID: must be the UUID of a template version/);
    const foreign = await post(promote, { spec: { versionID: other.active_version_id } });
    assert.ok(!foreign.ok);
    assert.match(foreign.stderr, new RegExp(`template version "${other.active_version_id}" is not a version of template "acme\\.starter"`));
    assert.equal(starter.active_version_id, v2.id);
  });

  it('lists and gets codertemplateversions with columns, and refuses writes with 405', async () => {
    const table = await kubectlOk(admin, ['get', 'codertemplateversions', '-n', served]);
    assert.match(table, /NAME\s+TEMPLATE\s+ACTIVE\s+IMPORT\s+AGE/);
    assert.match(table, /acme\.starter\.v1\s+starter\s+false\s+succeeded/);
    assert.match(table, /acme\.starter\.v2\s+starter\s+true\s+succeeded/);
    assert.match(table, /acme\.other\.v1\s+other\s+true/);
    const v2 = JSON.parse(await kubectlOk(admin, ['get', 'codertemplateversion', 'acme.starter.v2', '-n', served, '-o', 'json']));
    assert.equal(v2.status.active, true);
    assert.equal(v2.metadata.labels['aggregation.coder.com/template'], 'starter');
    const denied = await kubectl(admin, ['delete', 'codertemplateversion', 'acme.starter.v1', '-n', served]);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /MethodNotAllowed|not allow/);
  });

  it('creates a template from spec.files, shows them, and changes them as a new active version', async () => {
    const manifest = {
      apiVersion: 'aggregation.coder.com/v1alpha1',
      kind: 'CoderTemplate',
      metadata: { name: 'acme.files', namespace: served },
      spec: { organization: 'acme', displayName: 'Files', files: { 'main.tf': 'resource "null_resource" "a" {}\n' } },
    };
    await kubectlOk(admin, ['create', '-f', '-'], JSON.stringify(manifest));
    const created = JSON.parse(await kubectlOk(admin, ['get', 'codertemplate', 'acme.files', '-n', served, '-o', 'json']));
    assert.deepEqual(created.spec.files, manifest.spec.files);
    await kubectlOk(admin, [
      'patch',
      'codertemplate',
      'acme.files',
      '-n',
      served,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { files: { 'main.tf': 'resource "null_resource" "b" {}\n', 'README.md': '# files\n' } } }),
    ]);
    const changed = JSON.parse(await kubectlOk(admin, ['get', 'codertemplate', 'acme.files', '-n', served, '-o', 'json']));
    assert.notEqual(changed.spec.versionID, created.spec.versionID);
    assert.deepEqual(changed.spec.files, { 'main.tf': 'resource "null_resource" "b" {}\n', 'README.md': '# files\n' });
    const world = coder.state.world;
    const active = world.templateVersions.find((v) => v.id === world.templates.find((t) => t.name === 'files')!.active_version_id)!;
    const archive = readTar(world.files.get(active.job.file_id!)!.data);
    assert.deepEqual(
      archive.map((e) => e.path),
      ['README.md', 'main.tf'],
    );
    const versions = await kubectlOk(admin, [
      'get',
      'codertemplateversions',
      '-n',
      served,
      '-l',
      'aggregation.coder.com/template=files',
      '-o',
      'name',
    ]);
    assert.equal(versions.trim().split('\n').length, 2);
  });
});
