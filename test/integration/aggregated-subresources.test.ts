// The subresources and template sources of the aggregated API through the real aggregator (kubectl →
// kube-apiserver → aggregator → the operator → the Coder API double's one world): coderworkspaces/start,
// /stop and /log, codertemplates/promote, codertemplateversions, and codertemplates spec.files.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readTar } from '../../src/aggregated/storage/codertemplate/template-archive.ts';
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
import { openApiStream } from '../harness/api-stream.ts';
import { directRequest } from '../harness/direct-request.ts';
import { kubectl, kubectlOk, kubectlStreaming } from '../harness/kubectl.ts';
import type { RunningOperator } from '../harness/operator.ts';
import { eventually } from '../harness/wait.ts';

const token = 'aggregated2-operatortokenvalue0000000';
const served = 'coder';
const base = `/apis/aggregation.coder.com/v1alpha1/namespaces/${served}`;

let cp: ControlPlane;
let coder: CoderApiDouble;
let operator: RunningOperator;
let port: number;
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

const logEntry = (id: number, output: string) => ({
  id,
  created_at: `2026-12-01T10:00:0${id}Z`,
  log_source: 'provisioner' as const,
  log_level: 'info' as const,
  stage: 'Applying',
  output,
});

/** A workspace of alice whose latest build runs (until the test ends its job) and has logged `lines`. */
function workspaceWithRunningBuild(name: string, lines: string[]): StoredWorkspace {
  const world = coder.state.world;
  const template = world.templates.find((t) => t.name === 'starter')!;
  const stored = seedWorkspace(world, { owner: seedUser(coder.state.users, 'alice'), template, name });
  const build = stored.builds[0]!;
  build.job = { ...build.job, status: 'running' };
  world.buildLogs.set(
    build.id,
    lines.map((line, i) => logEntry(i + 1, line)),
  );
  return stored;
}

const endBuild = (stored: StoredWorkspace) => (stored.builds[0]!.job = { ...stored.builds[0]!.job, status: 'succeeded' });
const openFollows = (stored: StoredWorkspace) => coder.logFollows.filter((f) => f.buildId === stored.builds[0]!.id && f.open).length;

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
    ({ operator, port } = await startAggregatedApi(cp, coder, token, served, {
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

  it('follows the log through kubectl get --raw ?follow: lines logged meanwhile arrive, and kubectl exits when the build ends', async () => {
    const ws = workspaceWithRunningBuild('follow', ['plan ok']);
    const follow = kubectlStreaming(admin, ['get', '--raw', `${base}/coderworkspaces/acme.alice.follow/log?follow`]);
    try {
      await eventually('the first line', async () => follow.stdout().includes('plan ok'));
      coder.state.world.buildLogs.get(ws.builds[0]!.id)!.push(logEntry(2, 'applying'), logEntry(3, 'applied'));
      await eventually('the lines logged after the request started', async () => follow.stdout().includes('applied'));
      assert.equal(follow.exitCode(), undefined, 'kubectl still follows while the build runs');
      endBuild(ws);
      const result = await follow.exited;
      assert.equal(result.code, 0, result.stderr);
      assert.equal(
        result.stdout,
        '2026-12-01T10:00:01Z [info] [Applying] plan ok\n2026-12-01T10:00:02Z [info] [Applying] applying\n2026-12-01T10:00:03Z [info] [Applying] applied\n',
      );
    } finally {
      follow.kill();
    }
    const socket = coder.requests.find((r) => r.path === `/api/v2/workspacebuilds/${ws.builds[0]!.id}/logs`);
    assert.equal(socket?.headers.upgrade, 'websocket');
    assert.equal(socket?.token, token, 'the operator token went as the coder_session_token cookie');
    assert.equal(socket?.headers['coder-session-token'], undefined);
    assert.deepEqual([socket?.query.follow, socket?.query.after], ['true', '0']);
  });

  it('closes the Coder socket when the follower goes away, and stops a follow at limitBytes', async () => {
    const ws = workspaceWithRunningBuild('gone', ['first line', 'second line']);
    const follow = kubectlStreaming(admin, ['get', '--raw', `${base}/coderworkspaces/acme.alice.gone/log?follow`]);
    await eventually('the first lines', async () => follow.stdout().includes('second line'));
    assert.equal(openFollows(ws), 1);
    follow.kill();
    await follow.exited;
    await eventually('the double to see its socket closed', async () => openFollows(ws) === 0);

    const cut = await kubectl(admin, ['get', '--raw', `${base}/coderworkspaces/acme.alice.gone/log?follow&limitBytes=60`]);
    assert.equal(cut.code, 0, cut.stderr);
    const whole = '2026-12-01T10:00:01Z [info] [Applying] first line\n2026-12-01T10:00:02Z [info] [Applying] second line\n';
    assert.equal(cut.stdout, whole.slice(0, 60));
    assert.equal(ws.builds[0]!.job.status, 'running', 'the follow ended at the limit, not with the build');
    await eventually('the socket of the cut follow to close', async () => openFollows(ws) === 0);
  });

  it('refuses a 5th open follow of one user with 429 and Retry-After: 5, and an upgrade request with 400', async () => {
    const ws = workspaceWithRunningBuild('busy', ['busy']);
    const path = `${base}/coderworkspaces/acme.alice.busy/log?follow`;
    const open = await Promise.all([1, 2, 3, 4].map(() => openApiStream(cp, path)));
    try {
      assert.deepEqual(
        open.map((s) => s.status),
        [200, 200, 200, 200],
      );
      await eventually('4 sockets open in the double', async () => openFollows(ws) === 4);
      const fifth = await openApiStream(cp, path);
      await fifth.ended;
      assert.equal(fifth.status, 429);
      assert.equal(fifth.headers['retry-after'], '5');
      const status = JSON.parse(fifth.text());
      assert.equal(status.reason, 'TooManyRequests');
      assert.match(status.message, /user "admin" already follows 4 logs/);
      assert.equal(openFollows(ws), 4, 'the refused follow opened no socket');
    } finally {
      for (const s of open) s.close();
    }
    await eventually('every socket closed', async () => openFollows(ws) === 0);
    const again = await openApiStream(cp, path);
    assert.equal(again.status, 200, 'closed follows free their slots');
    again.close();

    const upgrade = await directRequest(port, `${base}/coderworkspaces/acme.alice.busy/log?follow`, {
      cert: cp.pki.frontProxyClient,
      headers: { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters', Connection: 'Upgrade', Upgrade: 'websocket' },
    });
    assert.equal(upgrade.status, 400, upgrade.body);
    assert.match(JSON.parse(upgrade.body).message, /coderworkspaces\/log does not upgrade connections/);
    endBuild(ws);
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

  it('answers 409 and activates nothing when the active version changes in Coder while new spec.files import', async () => {
    const manifest = {
      apiVersion: 'aggregation.coder.com/v1alpha1',
      kind: 'CoderTemplate',
      metadata: { name: 'acme.race', namespace: served },
      spec: { organization: 'acme', files: { 'main.tf': '# one\n' } },
    };
    await kubectlOk(admin, ['create', '-f', '-'], JSON.stringify(manifest));
    const world = coder.state.world;
    const race = world.templates.find((t) => t.name === 'race')!;
    const first = world.templateVersions.find((v) => v.id === race.active_version_id)!;
    const promotedElsewhere = { ...first, id: crypto.randomUUID(), name: 'elsewhere' };
    world.templateVersions.push(promotedElsewhere);
    const known = new Set(world.templateVersions.map((v) => v.id));

    world.importsHeld = true;
    let patch;
    try {
      patch = kubectl(admin, [
        'patch',
        'codertemplate',
        'acme.race',
        '-n',
        served,
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { files: { 'main.tf': '# two\n' } } }),
      ]);
      const importing = await eventually('the new version to be read while it imports', async () => {
        const version = world.templateVersions.find((v) => !known.has(v.id));
        return version && coder.requests.some((r) => r.path === `/api/v2/templateversions/${version.id}`) ? version : undefined;
      });
      assert.notEqual(importing.job.status, 'succeeded');
      race.active_version_id = promotedElsewhere.id;
    } finally {
      world.importsHeld = false;
    }
    const answer = await patch;
    assert.notEqual(answer.code, 0, 'the patch fails');
    assert.match(answer.stderr, /Conflict/);
    assert.match(answer.stderr, /codertemplates\.aggregation\.coder\.com "acme\.race" changed in Coder during the update/);
    assert.equal(race.active_version_id, promotedElsewhere.id, 'the version promoted in Coder stays active');
    assert.ok(
      !coder.requests.some((r) => r.method === 'PATCH' && r.path === `/api/v2/templates/${race.id}/versions`),
      'the new version was never activated',
    );
  });
});
