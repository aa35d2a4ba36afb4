// The Coder API double against the real Coder server: one scripted sequence of calls, run as an owner
// against both, compares the status of every answer and, for JSON answers, the fields the operator's
// document declares or the double answers (present on both, of the same JSON type). The routes are the
// ones both serve unlicensed; licensed ones (provisioner keys, workspace proxies) and the AI routes, which
// this release lacks, stay with the double and the Coder source its handlers cite. The table it prints has
// one row per step: same or DIFFERS, the real server's status, the call. What the real server learns from an
// archive the double does not read (a start held until it is canceled) is set on the double by a step's
// doubleKnob, never by the double's defaults.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderApiDocument } from '../../harness/coder-api-double/document.ts';
import { fieldsOf, elementOf } from '../../harness/coder-swagger.ts';
import { startCoderApiDouble, operatorUserId, type CoderApiDouble } from '../../harness/coder-api-double.ts';
import type { BuildScript } from '../../harness/coder-api-double/workspace-world.ts';
import { startPostgres, type Postgres } from '../../harness/postgres.ts';
import { startRealCoder, type RealCoder } from '../../harness/real-coder.ts';
import { echoTemplateArchive } from '../../harness/real-coder-templates.ts';

type Json = any;

interface Side {
  name: 'double' | 'coder';
  url: string;
  token: string;
  /** Ids and names a step remembered from an earlier answer. */
  ctx: Record<string, string>;
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
  raw?: { bytes: Uint8Array; contentType: string };
  token?: string | null;
}

interface Step {
  name: string;
  call: (ctx: Record<string, string>) => Call;
  /** Polls until this holds of the answer (an import or a build that runs on its own). */
  until?: (body: Json) => boolean;
  remember?: (ctx: Record<string, string>, body: Json) => void;
  /**
   * A knob of the double set after its answer, for what the real server learns from an archive the double
   * does not read (a start that runs until it is canceled): never the double's default.
   */
  doubleKnob?: (double: CoderApiDouble, ctx: Record<string, string>) => void;
}

interface Answer {
  status: number;
  /** The Allow header of a 405. */
  allow: string | null;
  contentType: string;
  body: Json;
}

const random = '5e9b1c2a-7d4e-4f6a-8b3c-9a1d2e3f4b5c';

/** Every setting of the template "diff" as it stands once its display name is Diff: a PATCH of them changes nothing. */
const templateSettings = {
  display_name: 'Diff',
  description: '',
  icon: '',
  default_ttl_ms: 0,
  activity_bump_ms: 0,
  allow_user_autostart: true,
  allow_user_autostop: true,
  allow_user_cancel_workspace_jobs: false,
  failure_ttl_ms: 0,
  time_til_dormant_ms: 0,
  time_til_dormant_autodelete_ms: 0,
  require_active_version: false,
};

async function send(side: Side, c: Call): Promise<Answer> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = c.token === undefined ? side.token : c.token;
  if (token) headers['Coder-Session-Token'] = token;
  let body: string | Uint8Array | undefined;
  if (c.raw) {
    body = c.raw.bytes;
    headers['Content-Type'] = c.raw.contentType;
  } else if (c.body !== undefined) {
    body = JSON.stringify(c.body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(new URL(c.path, side.url), {
    method: c.method,
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(30_000),
  });
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!;
  const bytes = Buffer.from(await res.arrayBuffer());
  let parsed: Json = undefined;
  if (contentType === 'application/json' && bytes.length > 0) parsed = JSON.parse(bytes.toString('utf8'));
  return { status: res.status, allow: res.headers.get('allow'), contentType, body: parsed };
}

async function run(side: Side, step: Step): Promise<Answer> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await send(side, step.call(side.ctx));
    if (!step.until || (answer.status < 300 && step.until(answer.body))) {
      if (answer.status < 300) step.remember?.(side.ctx, answer.body);
      return answer;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${side.name}: "${step.name}" did not hold within 60 s; the last answer: ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 2_000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** An error answer's message, with ids (which differ between the two) masked. */
function errorMessage(body: Json): string | undefined {
  const message = body?.message;
  return typeof message === 'string'
    ? message.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    : undefined;
}

function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** The fields of the operation's 2xx schema in the document (the ones the operator reads), recursively. */
function declaredFields(method: string, path: string, status: number): Json | undefined {
  const doc = coderApiDocument();
  const found = doc.match(method, new URL(path, 'http://x').pathname);
  return found?.operation.responses[String(status)]?.schema;
}

/** Where two answers differ: fields declared by the document or answered by the double, compared by presence and type. */
function differences(double: Json, coder: Json, schema: Json | undefined, where: string, out: string[], depth = 0): void {
  if (depth > 4) return;
  if (Array.isArray(double) || Array.isArray(coder)) {
    if (!Array.isArray(double) || !Array.isArray(coder))
      return void out.push(`${where}: double ${jsonType(double)}, Coder ${jsonType(coder)}`);
    if (double.length > 0 && coder.length > 0) differences(double[0], coder[0], itemsOf(schema), `${where}[0]`, out, depth + 1);
    return;
  }
  if (jsonType(double) !== 'object' || jsonType(coder) !== 'object') return;
  const doc = coderApiDocument();
  const declared = schema
    ? fieldsOf(
        elementOf(schema, (r) => doc.resolve({ $ref: r })),
        (r) => doc.resolve({ $ref: r }),
      )
    : undefined;
  const names = new Set([...Object.keys(double), ...(declared ? declared.properties.keys() : [])]);
  for (const name of names) {
    const inDouble = name in double;
    const inCoder = name in coder;
    if (!inDouble && !inCoder) continue;
    if (inDouble && !inCoder) out.push(`${where}.${name}: only the double answers it`);
    else if (!inDouble && inCoder) out.push(`${where}.${name}: Coder answers it (the document declares it), the double does not`);
    else if (jsonType(double[name]) !== jsonType(coder[name]) && double[name] !== null && coder[name] !== null)
      out.push(`${where}.${name}: double ${jsonType(double[name])}, Coder ${jsonType(coder[name])}`);
    else differences(double[name], coder[name], declared?.properties.get(name), `${where}.${name}`, out, depth + 1);
  }
}

function itemsOf(schema: Json | undefined): Json | undefined {
  if (!schema) return undefined;
  const doc = coderApiDocument();
  const s = doc.resolve<Json>(schema);
  return s?.items;
}

function steps(archive: Buffer, heldArchive: Buffer, failingArchive: Buffer): Step[] {
  const org = (c: Record<string, string>) => c.org!;
  return [
    { name: 'build info without a token', call: () => ({ method: 'GET', path: '/api/v2/buildinfo', token: null }) },
    { name: 'the current user without a token', call: () => ({ method: 'GET', path: '/api/v2/users/me', token: null }) },
    {
      name: 'the current user with an unknown token',
      call: () => ({ method: 'GET', path: '/api/v2/users/me', token: 'AAAAAAAAAA-BBBBBBBBBBBBBBBBBBBBBB' }),
    },
    {
      name: 'the current user',
      call: () => ({ method: 'GET', path: '/api/v2/users/me' }),
      remember: (c, b) => {
        c.me = b.id;
        c.username = b.username;
      },
    },
    { name: 'a user by id', call: (c) => ({ method: 'GET', path: `/api/v2/users/${c.me}` }) },
    { name: 'an unknown user', call: () => ({ method: 'GET', path: `/api/v2/users/${random}` }) },
    { name: 'entitlements', call: () => ({ method: 'GET', path: '/api/v2/entitlements' }) },
    { name: 'licenses', call: () => ({ method: 'GET', path: '/api/v2/licenses' }) },
    { name: 'a license that is no JWT', call: () => ({ method: 'POST', path: '/api/v2/licenses', body: { license: 'not-a-jwt' } }) },
    {
      name: 'the default organization by name',
      call: () => ({ method: 'GET', path: '/api/v2/organizations/coder' }),
      remember: (c, b) => void (c.org = b.id),
    },
    { name: 'the default organization by id', call: (c) => ({ method: 'GET', path: `/api/v2/organizations/${org(c)}` }) },
    { name: 'an unknown organization', call: () => ({ method: 'GET', path: `/api/v2/organizations/${random}` }) },
    {
      name: 'provisioner keys, unlicensed (premium 403)',
      call: (c) => ({ method: 'GET', path: `/api/v2/organizations/${org(c)}/provisionerkeys` }),
    },
    {
      name: 'a provisioner key, unlicensed (premium 403)',
      call: (c) => ({ method: 'POST', path: `/api/v2/organizations/${org(c)}/provisionerkeys`, body: { name: 'eu' } }),
    },
    {
      name: 'provisioner keys of an unknown organization',
      call: () => ({ method: 'GET', path: `/api/v2/organizations/${random}/provisionerkeys` }),
    },
    { name: 'workspace proxies, unlicensed (premium 403)', call: () => ({ method: 'GET', path: '/api/v2/workspaceproxies' }) },
    {
      name: 'a workspace proxy, unlicensed, signed out, with a body that is no JSON (the premium 403 comes first)',
      call: () => ({
        method: 'POST',
        path: '/api/v2/workspaceproxies',
        token: null,
        raw: { bytes: Buffer.from('{not json'), contentType: 'application/json' },
      }),
    },
    { name: 'delete a license by an id that is no integer', call: () => ({ method: 'DELETE', path: '/api/v2/licenses/abc' }) },
    { name: 'a workspace by an id that is no UUID', call: () => ({ method: 'GET', path: '/api/v2/workspaces/not-a-uuid' }) },
    { name: 'the workspaces with a negative limit', call: () => ({ method: 'GET', path: '/api/v2/workspaces?limit=-1' }) },
    {
      name: "a method Coder does not serve on a path it has (GET of the organization's template versions: 405)",
      call: (c) => ({ method: 'GET', path: `/api/v2/organizations/${org(c)}/templateversions` }),
    },
    { name: 'a route Coder does not have', call: () => ({ method: 'GET', path: '/api/v2/no-such-route' }) },
    {
      name: 'upload a template archive',
      call: () => ({ method: 'POST', path: '/api/v2/files', raw: { bytes: archive, contentType: 'application/x-tar' } }),
      remember: (c, b) => void (c.file = b.hash),
    },
    { name: 'download it', call: (c) => ({ method: 'GET', path: `/api/v2/files/${c.file}` }) },
    { name: 'an unknown file', call: () => ({ method: 'GET', path: `/api/v2/files/${random}` }) },
    {
      name: 'create a template version',
      call: (c) => ({
        method: 'POST',
        path: `/api/v2/organizations/${org(c)}/templateversions`,
        body: { storage_method: 'file', file_id: c.file, provisioner: 'echo' },
      }),
      remember: (c, b) => void (c.v1 = b.id),
    },
    {
      name: 'its import, until it ends',
      call: (c) => ({ method: 'GET', path: `/api/v2/templateversions/${c.v1}` }),
      until: (b) => ['succeeded', 'failed'].includes(b.job?.status),
      remember: (c, b) => void (c.v1name = b.name),
    },
    { name: 'its import logs', call: (c) => ({ method: 'GET', path: `/api/v2/templateversions/${c.v1}/logs` }) },
    {
      name: 'create a template',
      call: (c) => ({
        method: 'POST',
        path: `/api/v2/organizations/${org(c)}/templates`,
        body: { name: 'diff', template_version_id: c.v1 },
      }),
      remember: (c, b) => void (c.t = b.id),
    },
    {
      name: 'a template of a taken name',
      call: (c) => ({
        method: 'POST',
        path: `/api/v2/organizations/${org(c)}/templates`,
        body: { name: 'diff', template_version_id: c.v1 },
      }),
    },
    { name: 'the template by id', call: (c) => ({ method: 'GET', path: `/api/v2/templates/${c.t}` }) },
    { name: 'the template by name', call: (c) => ({ method: 'GET', path: `/api/v2/organizations/${org(c)}/templates/diff` }) },
    { name: 'an unknown template', call: () => ({ method: 'GET', path: `/api/v2/templates/${random}` }) },
    { name: 'the templates', call: () => ({ method: 'GET', path: '/api/v2/templates' }) },
    { name: "the organization's templates", call: (c) => ({ method: 'GET', path: `/api/v2/organizations/${org(c)}/templates` }) },
    {
      name: "the organization's templates by a part of the name",
      call: (c) => ({ method: 'GET', path: `/api/v2/organizations/${org(c)}/templates?q=DIF` }),
    },
    {
      name: "an organization's template search of a key Coder does not know",
      call: (c) => ({ method: 'GET', path: `/api/v2/organizations/${org(c)}/templates?q=colour:red` }),
    },
    { name: 'the deprecated templates', call: () => ({ method: 'GET', path: '/api/v2/templates?q=deprecated:true' }) },
    { name: 'a template search of a key Coder does not know', call: () => ({ method: 'GET', path: '/api/v2/templates?q=colour:red' }) },
    {
      name: "change only the template's display name (the omitted settings are reset)",
      call: (c) => ({ method: 'PATCH', path: `/api/v2/templates/${c.t}`, body: { display_name: 'Diff' } }),
    },
    {
      name: 'send the settings the template now has (nothing changes: 304)',
      call: (c) => ({
        method: 'PATCH',
        path: `/api/v2/templates/${c.t}`,
        body: { name: 'diff', ...templateSettings },
      }),
    },
    {
      name: 'the same settings without the name (Coder compares the name as sent: 200, the name kept)',
      call: (c) => ({
        method: 'PATCH',
        path: `/api/v2/templates/${c.t}`,
        body: templateSettings,
      }),
    },
    { name: 'the template versions', call: (c) => ({ method: 'GET', path: `/api/v2/templates/${c.t}/versions` }) },
    { name: 'a version by name', call: (c) => ({ method: 'GET', path: `/api/v2/templates/${c.t}/versions/${c.v1name}` }) },
    {
      name: "a version by the organization's template and name",
      call: (c) => ({ method: 'GET', path: `/api/v2/organizations/${org(c)}/templates/diff/versions/${c.v1name}` }),
    },
    {
      name: 'create a second version of the template',
      call: (c) => ({
        method: 'POST',
        path: `/api/v2/organizations/${org(c)}/templateversions`,
        body: { storage_method: 'file', file_id: c.file, provisioner: 'echo', template_id: c.t, name: 'second' },
      }),
      remember: (c, b) => void (c.v2 = b.id),
    },
    {
      name: 'its import, until it ends',
      call: (c) => ({ method: 'GET', path: `/api/v2/templateversions/${c.v2}` }),
      until: (b) => ['succeeded', 'failed'].includes(b.job?.status),
    },
    { name: 'promote it', call: (c) => ({ method: 'PATCH', path: `/api/v2/templates/${c.t}/versions`, body: { id: c.v2 } }) },
    { name: 'cancel a finished import', call: (c) => ({ method: 'PATCH', path: `/api/v2/templateversions/${c.v2}/cancel` }) },
    ...templateRefusalSteps(failingArchive),
    ...workspaceSteps(),
    ...heldBuildSteps(heldArchive),
    ...deletedWorkspaceSteps(),
  ];
}

const ended = (b: Json) => ['succeeded', 'failed', 'canceled'].includes(b.job?.status);

/** The import failure of the double's version, for the archive whose import fails on the real server (echoTemplateArchive failPlan). */
const importFails = (double: CoderApiDouble, id: string) => void double.state.world.importFailures.set(id, 'the import fails');

/**
 * What Coder refuses of templates and versions of the template "diff", and what it does not check: a
 * template of a version whose import failed.
 */
function templateRefusalSteps(failingArchive: Buffer): Step[] {
  const orgPath = (c: Record<string, string>) => `/api/v2/organizations/${c.org}`;
  const version = (c: Record<string, string>, body: Record<string, unknown>) => ({
    method: 'POST',
    path: `${orgPath(c)}/templateversions`,
    body: { storage_method: 'file', file_id: c.file, provisioner: 'echo', ...body },
  });
  return [
    { name: 'a version of a name the template has (409)', call: (c) => version(c, { template_id: c.t, name: 'second' }) },
    { name: 'a version of an unknown file (404)', call: (c) => version(c, { file_id: random }) },
    {
      name: 'a version of an unknown example (400)',
      call: (c) => ({
        method: 'POST',
        path: `${orgPath(c)}/templateversions`,
        body: { storage_method: 'file', example_id: 'no-such-example', provisioner: 'echo' },
      }),
    },
    { name: 'a version of an unknown template (404)', call: (c) => version(c, { template_id: random }) },
    {
      name: 'promote an unknown version (404)',
      call: (c) => ({ method: 'PATCH', path: `/api/v2/templates/${c.t}/versions`, body: { id: random } }),
    },
    {
      name: 'a template of a name taken in another case (409)',
      call: (c) => ({ method: 'POST', path: `${orgPath(c)}/templates`, body: { name: 'DIFF', template_version_id: c.v2 } }),
    },
    {
      name: 'a template of an unknown version (404)',
      call: (c) => ({ method: 'POST', path: `${orgPath(c)}/templates`, body: { name: 'other', template_version_id: random } }),
    },
    {
      name: 'a template of a version already part of a template (400)',
      call: (c) => ({ method: 'POST', path: `${orgPath(c)}/templates`, body: { name: 'other', template_version_id: c.v2 } }),
    },
    {
      name: 'upload an archive whose import fails',
      call: () => ({ method: 'POST', path: '/api/v2/files', raw: { bytes: failingArchive, contentType: 'application/x-tar' } }),
      remember: (c, b) => void (c.failFile = b.hash),
    },
    {
      name: 'a version of the template from it',
      call: (c) => version(c, { template_id: c.t, file_id: c.failFile }),
      remember: (c, b) => void (c.vFailing = b.id),
      doubleKnob: (double, c) => importFails(double, c.vFailing!),
    },
    { name: 'its import, until it ends', call: (c) => ({ method: 'GET', path: `/api/v2/templateversions/${c.vFailing}` }), until: ended },
    {
      name: 'promote the version whose import failed (403)',
      call: (c) => ({ method: 'PATCH', path: `/api/v2/templates/${c.t}/versions`, body: { id: c.vFailing } }),
    },
    {
      name: 'a version of no template from it',
      call: (c) => version(c, { file_id: c.failFile }),
      remember: (c, b) => void (c.vFailed = b.id),
      doubleKnob: (double, c) => importFails(double, c.vFailed!),
    },
    { name: 'its import, until it ends', call: (c) => ({ method: 'GET', path: `/api/v2/templateversions/${c.vFailed}` }), until: ended },
    {
      name: 'a template of the version whose import failed (Coder does not check the import)',
      call: (c) => ({ method: 'POST', path: `${orgPath(c)}/templates`, body: { name: 'failed', template_version_id: c.vFailed } }),
      remember: (c, b) => void (c.tFailed = b.id),
    },
    {
      name: 'rename it to a name another template has, in another case (409)',
      call: (c) => ({ method: 'PATCH', path: `/api/v2/templates/${c.tFailed}`, body: { name: 'Diff' } }),
    },
    { name: 'delete it', call: (c) => ({ method: 'DELETE', path: `/api/v2/templates/${c.tFailed}` }) },
  ];
}

/** A workspace of the template "diff", read every way the operator reads one, listed, stopped. */
function workspaceSteps(): Step[] {
  return [
    {
      name: 'create a workspace',
      call: (c) => ({ method: 'POST', path: '/api/v2/users/me/workspaces', body: { name: 'diffws', template_id: c.t } }),
      remember: (c, b) => {
        c.ws = b.id;
        c.b1 = b.latest_build.id;
      },
    },
    {
      name: 'a workspace of a name the owner has taken',
      call: (c) => ({ method: 'POST', path: '/api/v2/users/me/workspaces', body: { name: 'diffws', template_id: c.t } }),
    },
    {
      name: 'a workspace for a user that does not exist',
      call: (c) => ({ method: 'POST', path: '/api/v2/users/nobody-here/workspaces', body: { name: 'lost', template_id: c.t } }),
    },
    {
      name: 'a workspace of a template that does not exist',
      call: () => ({ method: 'POST', path: '/api/v2/users/me/workspaces', body: { name: 'lost', template_id: random } }),
    },
    {
      name: 'a workspace with a TTL and an autostart schedule, as the aggregated API creates one',
      call: (c) => ({
        method: 'POST',
        path: '/api/v2/users/me/workspaces',
        body: { name: 'timedws', template_id: c.t, ttl_ms: 5_430_000, autostart_schedule: 'CRON_TZ=UTC 30 9 * * 1-5' },
      }),
      remember: (c, b) => {
        c.wsTimed = b.id;
        c.bTimed = b.latest_build.id;
      },
    },
    {
      name: 'a workspace with a TTL under a minute',
      call: (c) => ({ method: 'POST', path: '/api/v2/users/me/workspaces', body: { name: 'lost', template_id: c.t, ttl_ms: 59_000 } }),
    },
    {
      name: 'a workspace with an autostart schedule that is not weekly',
      call: (c) => ({
        method: 'POST',
        path: '/api/v2/users/me/workspaces',
        body: { name: 'lost', template_id: c.t, autostart_schedule: '30 9 1 * *' },
      }),
    },
    { name: 'its first build, until it ends', call: (c) => ({ method: 'GET', path: `/api/v2/workspacebuilds/${c.b1}` }), until: ended },
    {
      name: 'the timed one, until its build ends',
      call: (c) => ({ method: 'GET', path: `/api/v2/workspacebuilds/${c.bTimed}` }),
      until: ended,
    },
    { name: 'the timed workspace', call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.wsTimed}` }) },
    { name: 'an unknown build', call: () => ({ method: 'GET', path: `/api/v2/workspacebuilds/${random}` }) },
    { name: 'the workspace', call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.ws}` }) },
    { name: 'the workspace by owner and name', call: () => ({ method: 'GET', path: '/api/v2/users/me/workspace/diffws' }) },
    {
      name: "the workspace by the owner's username and name, deleted ones included",
      call: (c) => ({ method: 'GET', path: `/api/v2/users/${c.username}/workspace/diffws?include_deleted=true` }),
    },
    {
      name: 'a workspace by name of an owner that does not exist',
      call: () => ({ method: 'GET', path: '/api/v2/users/nobody-here/workspace/diffws' }),
    },
    {
      name: 'a workspace by name of an owner id that does not exist',
      call: () => ({ method: 'GET', path: `/api/v2/users/${random}/workspace/diffws` }),
    },
    { name: 'a missing workspace of a known owner', call: () => ({ method: 'GET', path: '/api/v2/users/me/workspace/nowhere' }) },
    { name: 'an unknown workspace', call: () => ({ method: 'GET', path: `/api/v2/workspaces/${random}` }) },
    { name: 'the workspaces', call: () => ({ method: 'GET', path: '/api/v2/workspaces' }) },
    {
      name: 'the workspaces of the caller and a template',
      call: () => ({ method: 'GET', path: '/api/v2/workspaces?q=owner:me%20template:diff' }),
    },
    { name: 'the workspaces by a part of the name', call: () => ({ method: 'GET', path: '/api/v2/workspaces?q=DIFFW' }) },
    {
      name: 'the workspaces of the default organization',
      call: () => ({ method: 'GET', path: '/api/v2/workspaces?q=organization:coder' }),
    },
    { name: 'the running workspaces', call: () => ({ method: 'GET', path: '/api/v2/workspaces?q=status:running' }) },
    {
      name: 'the workspaces of an owner that does not exist',
      call: () => ({ method: 'GET', path: '/api/v2/workspaces?q=owner:nobody-here' }),
    },
    {
      name: 'the workspaces of an owner given by id (Coder matches usernames only)',
      call: (c) => ({ method: 'GET', path: `/api/v2/workspaces?q=owner:${c.me}` }),
    },
    {
      name: 'the workspaces of an organization that does not exist',
      call: () => ({ method: 'GET', path: '/api/v2/workspaces?q=organization:nowhere' }),
    },
    {
      name: 'the workspaces of a status that does not exist',
      call: () => ({ method: 'GET', path: '/api/v2/workspaces?q=status:resting' }),
    },
    { name: 'a workspace search of a key Coder does not know', call: () => ({ method: 'GET', path: '/api/v2/workspaces?q=colour:red' }) },
    { name: 'one page of the workspaces', call: () => ({ method: 'GET', path: '/api/v2/workspaces?limit=1&offset=0' }) },
    { name: 'its builds', call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.ws}/builds` }) },
    { name: 'its builds, at most 100', call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.ws}/builds?limit=100` }) },
    { name: 'the build logs', call: (c) => ({ method: 'GET', path: `/api/v2/workspacebuilds/${c.b1}/logs` }) },
    { name: 'cancel a finished build', call: (c) => ({ method: 'PATCH', path: `/api/v2/workspacebuilds/${c.b1}/cancel` }) },
    {
      name: 'cancel a finished build expecting it running (it completed: 400, not 412)',
      call: (c) => ({ method: 'PATCH', path: `/api/v2/workspacebuilds/${c.b1}/cancel?expect_status=running` }),
    },
    {
      name: 'stop the workspace',
      call: (c) => ({ method: 'POST', path: `/api/v2/workspaces/${c.ws}/builds`, body: { transition: 'stop' } }),
      remember: (c, b) => void (c.b2 = b.id),
    },
    { name: 'the stop build, until it ends', call: (c) => ({ method: 'GET', path: `/api/v2/workspacebuilds/${c.b2}` }), until: ended },
    {
      name: 'a build of an unknown transition',
      call: (c) => ({ method: 'POST', path: `/api/v2/workspaces/${c.ws}/builds`, body: { transition: 'pause' } }),
    },
    { name: 'delete the template while a workspace uses it', call: (c) => ({ method: 'DELETE', path: `/api/v2/templates/${c.t}` }) },
  ];
}

/** The double's knob for a version whose archive holds every start until it is canceled (echoTemplateArchive holdStart). */
const heldStart: BuildScript = { startReads: 1, agents: [], deleteReads: 1, startHeld: true };

/** A start that runs until it is canceled: another build waits (409), a cancel expecting the wrong status (412), the cancel. */
function heldBuildSteps(heldArchive: Buffer): Step[] {
  return [
    {
      name: 'upload an archive whose start runs until it is canceled',
      call: () => ({ method: 'POST', path: '/api/v2/files', raw: { bytes: heldArchive, contentType: 'application/x-tar' } }),
      remember: (c, b) => void (c.heldFile = b.hash),
    },
    {
      name: 'create a version of it',
      call: (c) => ({
        method: 'POST',
        path: `/api/v2/organizations/${c.org}/templateversions`,
        body: { storage_method: 'file', file_id: c.heldFile, provisioner: 'echo' },
      }),
      remember: (c, b) => void (c.vHeld = b.id),
      doubleKnob: (double, c) => void double.state.world.buildScripts.set(c.vHeld!, heldStart),
    },
    { name: 'its import, until it ends', call: (c) => ({ method: 'GET', path: `/api/v2/templateversions/${c.vHeld}` }), until: ended },
    {
      name: 'create a template of it',
      call: (c) => ({
        method: 'POST',
        path: `/api/v2/organizations/${c.org}/templates`,
        body: { name: 'held', template_version_id: c.vHeld },
      }),
      remember: (c, b) => void (c.tHeld = b.id),
    },
    {
      name: 'create a workspace of it',
      call: (c) => ({ method: 'POST', path: '/api/v2/users/me/workspaces', body: { name: 'heldws', template_id: c.tHeld } }),
      remember: (c, b) => {
        c.wsHeld = b.id;
        c.bHeld = b.latest_build.id;
      },
    },
    {
      name: 'its start, until a provisioner runs it',
      call: (c) => ({ method: 'GET', path: `/api/v2/workspacebuilds/${c.bHeld}` }),
      until: (b) => b.job?.status === 'running',
    },
    {
      name: 'a stop while the start runs',
      call: (c) => ({ method: 'POST', path: `/api/v2/workspaces/${c.wsHeld}/builds`, body: { transition: 'stop' } }),
    },
    {
      name: 'cancel the start expecting it pending (412)',
      call: (c) => ({ method: 'PATCH', path: `/api/v2/workspacebuilds/${c.bHeld}/cancel?expect_status=pending` }),
    },
    {
      name: 'cancel the start expecting it running',
      call: (c) => ({ method: 'PATCH', path: `/api/v2/workspacebuilds/${c.bHeld}/cancel?expect_status=running` }),
    },
    { name: 'cancel it again', call: (c) => ({ method: 'PATCH', path: `/api/v2/workspacebuilds/${c.bHeld}/cancel` }) },
    {
      name: 'the canceled start, until it ends (failed, with canceled_at)',
      call: (c) => ({ method: 'GET', path: `/api/v2/workspacebuilds/${c.bHeld}` }),
      until: ended,
    },
    { name: 'the workspace of the canceled start', call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.wsHeld}` }) },
    {
      name: 'delete that workspace',
      call: (c) => ({ method: 'POST', path: `/api/v2/workspaces/${c.wsHeld}/builds`, body: { transition: 'delete' } }),
      remember: (c, b) => void (c.bHeldDelete = b.id),
    },
    { name: 'its delete, until it ends', call: (c) => ({ method: 'GET', path: `/api/v2/workspacebuilds/${c.bHeldDelete}` }), until: ended },
  ];
}

/** The workspace deleted: what reads of it answer, before and after its template is deleted too. */
function deletedWorkspaceSteps(): Step[] {
  return [
    {
      name: 'delete the workspace',
      call: (c) => ({ method: 'POST', path: `/api/v2/workspaces/${c.ws}/builds`, body: { transition: 'delete' } }),
      remember: (c, b) => void (c.b3 = b.id),
    },
    { name: 'the delete build, until it ends', call: (c) => ({ method: 'GET', path: `/api/v2/workspacebuilds/${c.b3}` }), until: ended },
    {
      name: 'delete the timed workspace',
      call: (c) => ({ method: 'POST', path: `/api/v2/workspaces/${c.wsTimed}/builds`, body: { transition: 'delete' } }),
      remember: (c, b) => void (c.bTimedDelete = b.id),
    },
    {
      name: 'its delete, until it ends',
      call: (c) => ({ method: 'GET', path: `/api/v2/workspacebuilds/${c.bTimedDelete}` }),
      until: ended,
    },
    { name: 'the deleted workspace (410)', call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.ws}` }) },
    {
      name: 'the deleted workspace, deleted ones included',
      call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.ws}?include_deleted=true` }),
    },
    { name: 'the deleted workspace by owner and name', call: () => ({ method: 'GET', path: '/api/v2/users/me/workspace/diffws' }) },
    {
      name: 'the deleted workspace by owner and name, deleted ones included',
      call: () => ({ method: 'GET', path: '/api/v2/users/me/workspace/diffws?include_deleted=true' }),
    },
    { name: 'the builds of the deleted workspace', call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.ws}/builds?limit=100` }) },
    { name: 'the workspaces (the deleted ones left out)', call: () => ({ method: 'GET', path: '/api/v2/workspaces' }) },
    { name: 'delete the template', call: (c) => ({ method: 'DELETE', path: `/api/v2/templates/${c.t}` }) },
    { name: 'the deleted template', call: (c) => ({ method: 'GET', path: `/api/v2/templates/${c.t}` }) },
    { name: 'delete the other template', call: (c) => ({ method: 'DELETE', path: `/api/v2/templates/${c.tHeld}` }) },
    {
      name: 'the deleted workspace of a deleted template, deleted ones included (403)',
      call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.ws}?include_deleted=true` }),
    },
    {
      name: 'the deleted workspace of a deleted template by owner and name, deleted ones included',
      call: () => ({ method: 'GET', path: '/api/v2/users/me/workspace/diffws?include_deleted=true' }),
    },
    {
      name: 'the builds of the deleted workspace of a deleted template',
      call: (c) => ({ method: 'GET', path: `/api/v2/workspaces/${c.ws}/builds` }),
    },
    {
      name: 'a build of the deleted workspace (Coder queues it)',
      call: (c) => ({ method: 'POST', path: `/api/v2/workspaces/${c.ws}/builds`, body: { transition: 'delete' } }),
    },
  ];
}

describe('the Coder API double against the real Coder server', () => {
  let postgres: Postgres;
  let coder: RealCoder;
  let double: CoderApiDouble;

  before(async () => {
    postgres = await startPostgres();
    [coder, double] = await Promise.all([startRealCoder(postgres), startCoderApiDouble()]);
  });
  after(async () => {
    await double?.stop();
    await coder?.stop();
    await postgres?.stop();
  });

  it('answers every step of one scripted sequence with the status and fields the real server answers', async () => {
    const token = 'DiFFeRenT01-doubleTokenOfTheOwner000000';
    double.addToken(token, operatorUserId);
    const sides: Side[] = [
      { name: 'double', url: double.url, token, ctx: {} },
      { name: 'coder', url: coder.url, token: coder.owner.token, ctx: {} },
    ];
    const archive = await echoTemplateArchive({ logs: ['a line of the build'] });
    const heldArchive = await echoTemplateArchive({ holdStart: true });
    const failingArchive = await echoTemplateArchive({ failPlan: 'the import fails' });
    const table: string[] = [];
    for (const step of steps(archive, heldArchive, failingArchive)) {
      const d = await run(sides[0]!, step);
      step.doubleKnob?.(double, sides[0]!.ctx);
      const c = await run(sides[1]!, step);
      const found: string[] = [];
      const call = step.call(sides[1]!.ctx);
      if (d.status !== c.status) found.push(`status: double ${d.status}, Coder ${c.status}`);
      else if (d.allow !== c.allow) found.push(`Allow: double ${d.allow}, Coder ${c.allow}`);
      else if (d.contentType !== c.contentType) found.push(`content type: double ${d.contentType}, Coder ${c.contentType}`);
      else if (c.status >= 400 && errorMessage(d.body) !== errorMessage(c.body))
        found.push(`message: double ${JSON.stringify(errorMessage(d.body))}, Coder ${JSON.stringify(errorMessage(c.body))}`);
      else if (d.body !== undefined || c.body !== undefined)
        differences(d.body, c.body, c.status < 300 ? declaredFields(call.method, call.path, c.status) : undefined, 'body', found);
      table.push(
        `${found.length === 0 ? 'same' : 'DIFFERS'}  ${c.status}  ${call.method} ${step.name}${found.length ? `\n    ${found.join('\n    ')}` : ''}`,
      );
    }
    console.log(table.join('\n'));
    assert.deepEqual(
      table.filter((row) => row.startsWith('DIFFERS')),
      [],
    );
  });
});
