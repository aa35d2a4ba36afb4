// The aggregated API on the real Coder server, through the real aggregator, as a user runs kubectl:
// kubectl → kube-apiserver → APIService → `coder-k8s --app=all` (under its generated role) → the Coder of
// the namespace's CoderControlPlane, called with the operator token the operator minted in Coder's own
// database. Workspaces, templates and versions are listed, read, watched, created, patched, started,
// stopped, promoted and deleted; a build's log is followed; and what real Coder does differently from the
// double is shown where it matters: a template PATCH resets what it omits and answers 304 when nothing
// changes, lists leave deprecated templates out, /api/v2/files is rate limited, nothing runs Terraform (so a
// spec.files import is canceled when the wait gives up), and an owner Coder does not have is answered 400.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { CoderClient } from '../../../src/coder/client.ts';
import { listAllWorkspaces } from '../../../src/coder/workspace-list.ts';
import { registerApiService, waitApiServiceAvailable } from '../../harness/aggregated-api.ts';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectl, kubectlOk, kubectlStreaming } from '../../harness/kubectl.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';
import { freePort } from '../../harness/ports.ts';
import { sampleValue } from '../../harness/prometheus.ts';
import { createEchoTemplate, echoTemplateArchive, importVersion } from '../../harness/real-coder-templates.ts';
import { eventually } from '../../harness/wait.ts';

const ns = 'coder-agg';
const base = `/apis/aggregation.coder.com/v1alpha1/namespaces/${ns}`;
const logs = ['echo: hello from the build', 'echo: second line'];

describe('the aggregated API on the real Coder server', { timeout: 600_000 }, () => {
  let env: RealCoderEnvironment;
  let org: string;
  let owner: string;

  const k = (args: string[], input?: string) => kubectl(env.admin, [...args, '-n', ns], input);
  const kOk = (args: string[], input?: string) => kubectlOk(env.admin, [...args, '-n', ns], input);
  const getJson = async (kind: string, name: string) => JSON.parse(await kOk(['get', kind, name, '-o', 'json']));
  const coderTemplate = (name: string) => env.coder.ok('GET', `/api/v2/organizations/${env.coder.organization.id}/templates/${name}`);
  /** GET /api/v2/files/{fileID} answers Coder counted, by status code. */
  const fileDownloads = async (code: string) =>
    sampleValue(await env.coder.metrics(), 'coderd_api_requests_processed_total', {
      code,
      method: 'GET',
      path: '/api/v2/files/{fileID}',
    }) ?? 0;

  before(async () => {
    const port = await freePort();
    env = await realCoderEnvironment({
      app: 'all',
      operatorArgs: [`--secure-port=${port}`, '--bind-address=127.0.0.1'],
      beforeOperator: (cp) => registerApiService(cp, port),
      coder: { prometheus: true },
    });
    await waitApiServiceAvailable(env.cp, env.operator);
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    const { token } = await controlPlaneWithOperatorAccess(env, ns);
    // Nothing here needs owner: the operator user holds organization-admin only, and what follows works with it.
    const me = await env.coder.ok('GET', '/api/v2/users/me', { token });
    assert.deepEqual(me.roles, [], 'no site role');
    org = env.coder.organization.name;
    owner = env.coder.owner.username;
  });
  after(async () => {
    await env?.stop();
  });

  it('lists, gets and watches what Coder holds, and creates, follows, stops, starts and deletes a workspace with kubectl', async () => {
    const template = await createEchoTemplate(env.coder, 'echo', { logs });
    const table = await kOk(['get', 'codertemplates']);
    assert.match(table, new RegExp(`${org}\\.echo\\b`));
    const got = await getJson('codertemplate', `${org}.echo`);
    assert.equal(got.spec.versionID, template.activeVersionId);
    const versions = await kOk(['get', 'codertemplateversions', '-o', 'name']);
    assert.match(versions, new RegExp(`codertemplateversion.aggregation.coder.com/${org}\\.echo\\.`));

    const watch = kubectlStreaming(env.admin, ['get', 'coderworkspaces', '-n', ns, '-w', '--output-watch-events']);
    const name = `${org}.${owner}.dev`;
    try {
      await kOk(['create', '-f', '-'], JSON.stringify(workspace(name, { templateName: 'echo', running: true })));
      const follow = await kubectl(env.admin, ['get', '--raw', `${base}/coderworkspaces/${name}/log?follow`]);
      assert.equal(follow.code, 0, follow.stderr);
      for (const line of logs) assert.match(follow.stdout, new RegExp(`\\[info\\] \\[[^\\]]*\\] ${line}\\n`));
      const added = new RegExp(`ADDED\\s+${name.replaceAll('.', '\\.')}\\s+echo\\s`);
      await eventually('the watch to report the created workspace', async () => added.test(watch.stdout())).catch((err: Error) =>
        assert.fail(`${err.message}\nkubectl -w printed:\n${watch.stdout()}`),
      );
    } finally {
      watch.kill();
    }
    const built = await eventually('the first build to succeed in Coder', async () => {
      const ws = await env.coder.ok('GET', `/api/v2/users/${owner}/workspace/dev`);
      return ws.latest_build.job.status === 'succeeded' ? ws : undefined;
    });
    assert.equal(built.latest_build.transition, 'start');
    assert.equal((await getJson('coderworkspace', name)).spec.running, true);

    await kOk(['patch', 'coderworkspace', name, '--type=merge', '-p', '{"spec":{"running":false}}']);
    await eventually('a stop build that succeeded', async () => {
      const ws = await env.coder.ok('GET', `/api/v2/users/${owner}/workspace/dev`);
      return ws.latest_build.transition === 'stop' && ws.latest_build.job.status === 'succeeded';
    });
    assert.equal((await getJson('coderworkspace', name)).spec.running, false);
    const started = JSON.parse(await kubectlOk(env.admin, ['create', '--raw', `${base}/coderworkspaces/${name}/start`, '-f', '-'], '{}'));
    assert.equal(started.status.outcome, 'Queued');
    await eventually('the start build to succeed', async () => (await getJson('coderworkspace', name)).spec.running === true);

    await kOk(['delete', 'coderworkspace', name, '--timeout=120s']);
    const gone = await k(['get', 'coderworkspace', name]);
    assert.match(gone.stderr, /NotFound/);
    assert.equal((await env.coder.api('GET', `/api/v2/users/${owner}/workspace/dev`)).status, 404);
  });

  it('reads the workspace list page by page as Coder pages it (limit, offset, and the count of all with each page), and lists them all with kubectl', async () => {
    const template = await createEchoTemplate(env.coder, 'pages');
    const names = ['page-a', 'page-b', 'page-c', 'page-d', 'page-e'];
    // Created with kubectl, so that the operator's list cache is dropped and the list below reads Coder.
    for (const name of names)
      await kOk(
        ['create', '-f', '-'],
        JSON.stringify(workspace(`${org}.${owner}.${name}`, { templateName: template.name, running: true })),
      );
    const client = new CoderClient({ baseURL: env.coder.url, token: env.coder.owner.token });
    const all = await client.request('GET', '/api/v2/workspaces', { query: { q: 'template:pages' } });
    assert.equal(all.count, names.length);
    const second = await client.request('GET', '/api/v2/workspaces', { query: { q: 'template:pages', limit: 2, offset: 2 } });
    assert.deepEqual([second.workspaces.length, second.count], [2, names.length], 'one page, and the count of all');
    const paged = await listAllWorkspaces(client, 'template:pages', { pageSize: 2 });
    assert.deepEqual(paged.map((ws) => ws.name).sort(), names);

    const listed = (await kOk(['get', 'coderworkspaces', '-o', 'name'])).split('\n').filter((l) => l.includes('.page-'));
    assert.deepEqual(
      listed.sort(),
      names.map((n) => `coderworkspace.aggregation.coder.com/${org}.${owner}.${n}`),
    );
  });

  it('answers NotFound for a workspace of an owner Coder does not have, as for a missing workspace of a known owner', async () => {
    // Coder answers 400 "\"user\" must be an existing uuid or username." for the unknown owner, 404 for the missing workspace.
    assert.equal((await env.coder.api('GET', '/api/v2/users/nobody-here/workspace/dev')).status, 400);
    for (const name of [`${org}.nobody-here.dev`, `${org}.${owner}.nowhere`]) {
      const got = await k(['get', 'coderworkspace', name]);
      assert.match(got.stderr, new RegExp(`Error from server \\(NotFound\\): coderworkspaces.aggregation.coder.com "${name}" not found`));
      const patched = await k(['patch', 'coderworkspace', name, '--type=merge', '-p', '{"spec":{"running":true}}']);
      assert.match(patched.stderr, /\(NotFound\)/);
      const deleted = await k(['delete', 'coderworkspace', name]);
      assert.match(deleted.stderr, /\(NotFound\)/);
      const started = await kubectl(env.admin, ['create', '--raw', `${base}/coderworkspaces/${name}/start`, '-f', '-'], '{}');
      assert.match(started.stderr, /NotFound|not found/);
    }
  });

  it('creates a template from an imported version, watches it while a newer one is promoted, and deletes it, with kubectl', async () => {
    const first = await importVersion(env.coder, await echoTemplateArchive());
    await kOk(['create', '-f', '-'], JSON.stringify(codertemplate(`${org}.made`, { versionID: first.id, displayName: 'Made' })));
    const made = await coderTemplate('made');
    assert.equal(made.active_version_id, first.id);
    assert.equal(made.display_name, 'Made');
    const second = await importVersion(env.coder, await echoTemplateArchive({ logs: ['v2'] }), { template: made.id });
    assert.equal(second.job.status, 'succeeded');
    const promote = (dryRun = false) =>
      kubectlOk(
        env.admin,
        ['create', '--raw', `${base}/codertemplates/${org}.made/promote${dryRun ? '?dryRun=All' : ''}`, '-f', '-'],
        JSON.stringify({ spec: { versionID: second.id } }),
      );
    assert.equal(JSON.parse(await promote(true)).status.result, 'WouldPromote');
    const watch = kubectlStreaming(env.admin, ['get', 'codertemplates', '-n', ns, '-w', '--output-watch-events']);
    const madePattern = `${org}\\.made`;
    const shown = (err: Error) => assert.fail(`${err.message}\nkubectl -w printed:\n${watch.stdout()}`);
    try {
      await eventually('the watch to list the template', async () => new RegExp(`ADDED\\s+${madePattern}\\s`).test(watch.stdout())).catch(
        shown,
      );
      assert.equal(JSON.parse(await promote()).status.result, 'Promoted');
      await eventually('the watch to report the promotion', async () =>
        new RegExp(`MODIFIED\\s+${madePattern}\\s`).test(watch.stdout()),
      ).catch(shown);
    } finally {
      watch.kill();
    }
    assert.equal((await coderTemplate('made')).active_version_id, second.id);
    assert.equal(JSON.parse(await promote()).status.result, 'AlreadyActive');
    const listed = JSON.parse(await kOk(['get', 'codertemplateversions', '-o', 'json'])).items.filter(
      (v: any) => v.spec.templateName === 'made',
    );
    assert.deepEqual(
      listed.map((v: any) => [v.status.id, v.status.active]).sort(),
      [
        [first.id, false],
        [second.id, true],
      ].sort(),
    );
    const active = listed.find((v: any) => v.status.id === second.id);
    assert.equal((await getJson('codertemplateversion', active.metadata.name)).status.active, true);
    assert.equal((await getJson('codertemplate', `${org}.made`)).spec.versionID, second.id);

    await kOk(['delete', 'codertemplate', `${org}.made`]);
    assert.equal((await env.coder.api('GET', `/api/v2/templates/${made.id}`)).status, 404);
  });

  it("patches a template's displayName with kubectl and keeps the TTL, activity bump and cancel setting set through Coder's API", async () => {
    const template = await createEchoTemplate(env.coder, 'settings');
    const current = await env.coder.ok('GET', `/api/v2/templates/${template.id}`);
    const settings = { default_ttl_ms: 7_200_000, activity_bump_ms: 1_800_000, allow_user_cancel_workspace_jobs: true };
    const full = { ...current, ...settings, update_workspace_last_used_at: false, update_workspace_dormant_at: false };
    const body = Object.fromEntries(Object.entries(full).filter(([key]) => updateTemplateMetaFields.has(key)));
    await env.coder.ok('PATCH', `/api/v2/templates/${template.id}`, { body });

    await kOk(['patch', 'codertemplate', `${org}.settings`, '--type=merge', '-p', '{"spec":{"displayName":"Settings kept"}}']);
    const after = await env.coder.ok('GET', `/api/v2/templates/${template.id}`);
    assert.equal(after.display_name, 'Settings kept');
    assert.deepEqual(
      {
        default_ttl_ms: after.default_ttl_ms,
        activity_bump_ms: after.activity_bump_ms,
        allow_user_cancel_workspace_jobs: after.allow_user_cancel_workspace_jobs,
      },
      settings,
    );
    // Patching to what it already is sends nothing that could reset anything.
    await kOk(['patch', 'codertemplate', `${org}.settings`, '--type=merge', '-p', '{"spec":{"displayName":"Settings kept"}}']);
    assert.equal((await env.coder.ok('GET', `/api/v2/templates/${template.id}`)).default_ttl_ms, settings.default_ttl_ms);

    // A body that changes nothing: real Coder answers 304 without a body, which the client takes as success.
    const unchanged = { ...body, display_name: 'Settings kept' };
    const again = await env.coder.api('PATCH', `/api/v2/templates/${template.id}`, { body: unchanged });
    assert.deepEqual([again.status, again.body], [304, undefined]);
    const client = new CoderClient({ baseURL: env.coder.url, token: env.coder.owner.token });
    const answer = await client.request('PATCH', '/api/v2/templates/{template}', { params: { template: template.id }, body: unchanged });
    assert.equal(answer, undefined);
  });

  it('lists deprecated templates and their versions, as get finds them', async () => {
    const template = await createEchoTemplate(env.coder, 'retired');
    // Deprecating is a Premium feature: unlicensed, Coder takes the message and ignores it.
    await env.coder.ok('PATCH', `/api/v2/templates/${template.id}`, { body: { deprecation_message: 'use echo' } });
    assert.equal((await env.coder.ok('GET', `/api/v2/templates/${template.id}`)).deprecated, false);
    // The state a deployment keeps when the license that deprecated the template lapses.
    await deprecateInDatabase(env.coder.databaseURL, template.id, 'use echo');
    const listed = (await env.coder.ok('GET', '/api/v2/templates')) as { name: string }[];
    assert.ok(!listed.some((t) => t.name === 'retired'), 'Coder lists it only when asked');
    const onlyDeprecated = (await env.coder.ok('GET', '/api/v2/templates', { query: { q: 'deprecated:true' } })) as { name: string }[];
    assert.deepEqual(
      onlyDeprecated.map((t) => t.name),
      ['retired'],
    );
    assert.equal((await coderTemplate('retired')).deprecated, true);

    const got = await getJson('codertemplate', `${org}.retired`);
    assert.equal(got.status.deprecated, true);
    // Lists are cached for up to 30 s; a write through the operator drops the cache, as would waiting.
    await kOk(['patch', 'codertemplate', `${org}.retired`, '--type=merge', '-p', '{"spec":{"description":"retired"}}']);
    const templates = JSON.parse(await kOk(['get', 'codertemplates', '-o', 'json'])).items.map((t: any) => t.metadata.name);
    assert.ok(templates.includes(`${org}.retired`), `codertemplates lists it: ${templates}`);
    assert.ok(templates.includes(`${org}.echo`));
    const versions = await eventually(
      'codertemplateversions to list the version of the deprecated template',
      async () => {
        const names = (await kOk(['get', 'codertemplateversions', '-o', 'name'])).split('\n');
        return names.some((n) => n.includes(`/${org}.retired.`)) ? names : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 2_000 },
    );
    assert.ok(versions.some((n) => n.includes(`/${org}.echo.`)));
  });

  it("reads a template's files from one download however often it is read within a minute (Coder allows 12 a minute)", async () => {
    // An archive of its own: Coder keeps one file per content and user, so another template's would be cached already.
    const template = await createEchoTemplate(env.coder, 'popular', { logs: ['popular'] });
    const downloadsBefore = await fileDownloads('200');
    const limitedBefore = await fileDownloads('429');
    for (let i = 0; i < 20; i++) {
      const got = await getJson('codertemplate', `${org}.popular`);
      assert.equal(got.spec.versionID, template.activeVersionId);
    }
    await kOk(['patch', 'codertemplate', `${org}.popular`, '--type=merge', '-p', '{"spec":{"displayName":"Popular"}}']);
    assert.equal((await coderTemplate('popular')).display_name, 'Popular');
    assert.equal((await fileDownloads('200')) - downloadsBefore, 1, 'one download of the archive');
    assert.equal((await fileDownloads('429')) - limitedBefore, 0, 'no answer of the rate limit');
  });

  it('answers a spec.files template, which needs a Terraform provisioner nobody runs here, after waiting for the import, with a clear 400', async () => {
    const started = Date.now();
    const applied = await kubectl(
      env.admin,
      ['apply', '-n', ns, '-f', '-'],
      JSON.stringify(codertemplate(`${org}.terraform`, { files: { 'main.tf': 'resource "null_resource" "a" {}\n' } })),
    );
    const waitedMs = Date.now() - started;
    assert.notEqual(applied.code, 0);
    assert.ok(waitedMs >= 25_000, `kubectl waited ${waitedMs} ms for the import`);
    assert.match(
      applied.stderr,
      /Error from server \(BadRequest\): .*template version "[0-9a-f-]{36}" did not succeed within 30s \(last status: "pending"\): template version build wait timeout exceeded; no provisioner daemon took the import job: spec\.files is imported with the terraform provisioner/,
    );
    assert.match(applied.stderr, /; the import was canceled in Coder/);
    // In Coder: the version the files made, its import canceled before any daemon took it (nothing imports it
    // later), and no template.
    const versionId = /template version "([0-9a-f-]{36})"/.exec(applied.stderr)![1];
    const version = await env.coder.ok('GET', `/api/v2/templateversions/${versionId}`);
    assert.deepEqual([version.job.status, version.job.started_at], ['canceled', undefined]);
    assert.ok(version.job.canceled_at && version.job.completed_at, 'Coder completes a queued job it cancels at once');
    assert.equal(version.template_id, '00000000-0000-0000-0000-000000000000', 'a version of no template');
    assert.equal((await env.coder.api('GET', `/api/v2/organizations/${env.coder.organization.id}/templates/terraform`)).status, 404);
    const missing = await k(['get', 'codertemplate', `${org}.terraform`]);
    assert.match(missing.stderr, /NotFound/);
  });
});

/** The fields codersdk UpdateTemplateMeta has (v2.26.1). */
const updateTemplateMetaFields = new Set([
  'name',
  'display_name',
  'description',
  'icon',
  'default_ttl_ms',
  'activity_bump_ms',
  'allow_user_autostart',
  'allow_user_autostop',
  'allow_user_cancel_workspace_jobs',
  'failure_ttl_ms',
  'time_til_dormant_ms',
  'time_til_dormant_autodelete_ms',
  'update_workspace_last_used_at',
  'update_workspace_dormant_at',
  'require_active_version',
]);

function workspace(name: string, spec: { templateName: string; running: boolean }) {
  const [organization] = name.split('.');
  return {
    apiVersion: 'aggregation.coder.com/v1alpha1',
    kind: 'CoderWorkspace',
    metadata: { name },
    spec: { organization, ...spec },
  };
}

function codertemplate(name: string, spec: Record<string, unknown>) {
  const [organization] = name.split('.');
  return { apiVersion: 'aggregation.coder.com/v1alpha1', kind: 'CoderTemplate', metadata: { name }, spec: { organization, ...spec } };
}

/** Sets templates.deprecated in Coder's database, as a licensed deprecation leaves it. */
async function deprecateInDatabase(databaseURL: string, templateId: string, message: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseURL });
  await client.connect();
  try {
    const result = await client.query('UPDATE templates SET deprecated = $1 WHERE id = $2', [message, templateId]);
    assert.equal(result.rowCount, 1);
  } finally {
    await client.end();
  }
}
