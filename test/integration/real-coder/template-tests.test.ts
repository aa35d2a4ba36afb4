// CoderTemplateTest on the real Coder server, run as the how-to (docs/how-to/template-tests.md) tells a user:
// the sample applied with kubectl, `kubectl wait` on its conditions, the jsonpath of the conditions. Echo
// templates build without Terraform; `coder agent` from the same binary connects for the workspace.
// Also what the real server answers where the double must agree: calls Coder does not serve, and how Coder
// names and finds its default organization.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderTemplateTestClient, type CoderTemplateTestClient } from '../../../generated/clients/index.ts';

import { CoderClient } from '../../../src/coder/client.ts';
import { coderFailureStep } from '../../../src/controllers/codertemplatetest/coder-failure.ts';
import { resolveInputs } from '../../../src/controllers/codertemplatetest/resolve-inputs.ts';
import { aControlPlane } from '../../fixtures/codercontrolplane.ts';
import { aTemplateTest } from '../../fixtures/codertemplatetest.ts';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectlOk } from '../../harness/kubectl.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';
import type { ManagedProcess } from '../../harness/process.ts';
import { createEchoTemplate, startAgent } from '../../harness/real-coder-templates.ts';
import { eventually } from '../../harness/wait.ts';

const ns = 'coder';
const conditionsJsonpath = 'jsonpath={range .status.conditions[*]}{.type} {.status} {.reason}: {.message}{"\\n"}{end}';

describe('CoderTemplateTest on the real Coder server', () => {
  let env: RealCoderEnvironment;
  let tests: CoderTemplateTestClient;
  let token: string;
  let tester: { id: string; username: string };
  const agents: ManagedProcess[] = [];

  before(async () => {
    env = await realCoderEnvironment();
    tests = coderTemplateTestClient(env.cp.adminConfig());
    // The tester the how-to asks for: active, login type none, only member roles, in the default organization.
    tester = await env.coder.ok('POST', '/api/v2/users', {
      body: {
        username: 'template-tester',
        email: 'template-tester@harness.invalid',
        login_type: 'none',
        user_status: 'active',
        organization_ids: [env.coder.organization.id],
      },
    });
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    ({ token } = await controlPlaneWithOperatorAccess(env, ns, 'coder', { spec: { templateTests: { ownerUserID: tester.id } } }));
  });
  after(async () => {
    for (const agent of agents) await agent.stop();
    await env?.stop();
  });

  const conditions = async (name: string) =>
    (await kubectlOk(env.admin, ['-n', ns, 'get', 'codertemplatetest', name, '-o', conditionsJsonpath])).trim();
  const waitFor = (name: string, condition: string, timeout = '180s') =>
    kubectlOk(env.admin, ['-n', ns, 'wait', `codertemplatetest/${name}`, `--for=condition=${condition}`, `--timeout=${timeout}`]);
  const create = (name: string, template: string) => {
    const manifest = aTemplateTest(name).inNamespace(ns).withSpec({ template, timeoutSeconds: 300 }).manifest();
    return kubectlOk(env.admin, ['apply', '-f', '-'], JSON.stringify(manifest));
  };
  const untilReason = (name: string, reason: string) =>
    eventually(
      `CoderTemplateTest ${ns}/${name} to wait ${reason}`,
      async () => {
        const t = await tests.get(ns, name);
        if (t.status?.phase === 'Failed') throw new Error(`${name} failed: ${t.status.reason}: ${t.status.message}`);
        return t.status?.reason === reason ? t : undefined;
      },
      { timeoutMs: 120_000 },
    );
  /** The workspace as Coder's API shows it: 410 once deleted (coderd/workspaces.go), and its latest build with include_deleted. */
  const workspaceInCoder = async (id: string) => ({
    status: (await env.coder.api('GET', `/api/v2/workspaces/${id}`)).status,
    latest: (await env.coder.ok('GET', `/api/v2/workspaces/${id}`, { query: { include_deleted: 'true' } })).latest_build as {
      transition: string;
      job: { status: string };
    },
  });

  it('passes the sample as applied: the workspace is built, its agent connects, the test succeeds and Coder deletes the workspace', async () => {
    const template = await createEchoTemplate(env.coder, 'docker', { agent: true });
    await kubectlOk(env.admin, ['apply', '-f', 'config/samples/coder_v1alpha1_codertemplatetest.yaml']);
    const building = await untilReason('docker-active', 'WaitingForAgents');
    agents.push(await startAgent(env.coder, template.agentToken!));
    await waitFor('docker-active', 'Ready');
    const lines = await conditions('docker-active');
    assert.match(lines, /^Ready True Succeeded: Every agent of workspace ktt-[0-9a-f]{28} was ready, and the workspace is deleted\.$/m);
    assert.match(lines, /^WorkspaceDeleted True Deleted: /m);
    assert.match(
      await kubectlOk(env.admin, ['-n', ns, 'get', 'codertemplatetests']),
      /docker-active\s+Succeeded\s+True\s+coder\.docker\s+\S+\s+Succeeded/,
    );
    const done = await tests.get(ns, 'docker-active');
    assert.equal(done.status?.organizationID, env.coder.organization.id);
    assert.equal(done.status?.templateVersionID, template.activeVersionId);
    const workspace = await workspaceInCoder(building.status!.workspaceID!);
    assert.equal(workspace.status, 410);
    assert.deepEqual([workspace.latest.transition, workspace.latest.job.status], ['delete', 'succeeded']);
    const owned = await env.coder.ok('GET', '/api/v2/workspaces', { query: { q: `owner:${tester.username}` } });
    assert.equal(owned.count, 0, 'no workspace of the tester is left');
  });

  it("fails a template whose apply fails with Coder's own message in the condition, then deletes the workspace in Coder", async (t) => {
    await createEchoTemplate(env.coder, 'broken', { agent: true, failApply: 'the apply of this template fails on purpose' });
    await create('broken', 'coder.broken');
    // kstatus reads a failed test as Stalled (docs: health in GitOps tools).
    await waitFor('broken', 'Stalled');
    const lines = await conditions('broken');
    t.diagnostic(lines);
    assert.match(lines, /^Ready False BuildFailed: The start build failed: .*the apply of this template fails on purpose/m);
    assert.match(lines, /^Stalled True BuildFailed: /m);
    await eventually('WorkspaceDeleted True once cleanup deleted the workspace', async () =>
      /^WorkspaceDeleted True Deleted: /m.test(await conditions('broken')),
    );
    const failed = await tests.get(ns, 'broken');
    assert.equal(failed.status?.phase, 'Failed', 'cleanup never changes the result');
    assert.equal((await workspaceInCoder(failed.status!.workspaceID!)).status, 410);
  });

  it('deletes the workspace in Coder when the test is deleted while it runs; "default" is the organization Coder marks is_default', async () => {
    await createEchoTemplate(env.coder, 'abandoned', { agent: true });
    // Coder reads the organization "default" by is_default, not by name (coderd/httpmw/organizationparam.go).
    await create('abandoned', 'default.abandoned');
    const running = await untilReason('abandoned', 'WaitingForAgents');
    assert.equal(running.status?.phase, 'Running');
    assert.equal(running.status?.organizationID, env.coder.organization.id);
    await kubectlOk(env.admin, ['-n', ns, 'delete', 'codertemplatetest', 'abandoned', '--wait=true', '--timeout=120s']);
    const workspace = await workspaceInCoder(running.status!.workspaceID!);
    assert.equal(workspace.status, 410);
    assert.deepEqual([workspace.latest.transition, workspace.latest.job.status], ['delete', 'succeeded']);
  });

  it('names its default organization "coder" and marks it is_default, as the double does', async () => {
    const orgs = (await env.coder.ok('GET', '/api/v2/organizations')) as { name: string; is_default: boolean; id: string }[];
    assert.deepEqual(
      orgs.map((o) => [o.name, o.is_default]),
      [['coder', true]],
    );
    assert.equal((await env.coder.ok('GET', '/api/v2/organizations/default')).id, orgs[0]!.id);
    assert.equal((await env.coder.api('GET', '/api/v2/organizations/Default')).status, 404);
  });

  it('answers calls it does not serve with 405 or "Route not found.", which a test reports as EndpointNotFound; an object it lacks as CoderNotFound', async () => {
    const client = new CoderClient({ baseURL: env.coder.url, token, retries: 0 });
    const anyCall = client.request as unknown as (method: string, path: string, options: object) => Promise<unknown>;
    const failure = (path: string, params: Record<string, string> = {}) =>
      anyCall.call(client, 'GET', path, { params }).then(
        () => assert.fail(`GET ${path} succeeded`),
        (err: unknown) => err,
      );
    // The owner check's old call: Coder serves only POST and DELETE on a membership (coderd/coderd.go).
    const membership = await failure('/api/v2/organizations/{organization}/members/{user}', {
      organization: env.coder.organization.id,
      user: tester.id,
    });
    assert.equal((membership as { status?: number }).status, 405);
    const raw = await env.coder.api('GET', `/api/v2/organizations/${env.coder.organization.id}/members/${tester.id}`);
    // chi lists the allowed methods from a map, so their order changes between runs of one server.
    const allowed = (raw.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    assert.deepEqual([raw.status, allowed.toSorted(), raw.body], [405, ['DELETE', 'POST'], undefined], 'as the double answers it');
    const step = coderFailureStep(membership);
    assert.equal(`${step.kind} ${'reason' in step ? step.reason : ''}`, 'fail EndpointNotFound');
    assert.match(step.message, new RegExp(`^Coder ${env.coder.version.replace(/\./g, '\\.')} does not serve GET /api/v2/organizations/`));
    const routeless = coderFailureStep(await failure('/api/v2/no-such-route'));
    assert.equal(`${routeless.kind} ${'reason' in routeless ? routeless.reason : ''}`, 'fail EndpointNotFound');
    const missingVersion = coderFailureStep(
      await failure('/api/v2/templateversions/{templateVersion}', { templateVersion: '3b7c0a52-5d55-4c44-9a3e-1f0f8e1c0d11' }),
    );
    assert.equal(`${missingVersion.kind} ${'reason' in missingVersion ? missingVersion.reason : ''}`, 'wait CoderNotFound');
  });

  it('reports an ownerUserID that names no Coder user as OwnerNotEligible: Coder answers 400 there, not 404', async () => {
    const client = new CoderClient({ baseURL: env.coder.url, token, retries: 0 });
    const unknown = '3b7c0a52-5d55-4c44-9a3e-1f0f8e1c0d11';
    const answer = await env.coder.api('GET', `/api/v2/users/${unknown}`);
    assert.deepEqual([answer.status, answer.body.message], [400, '"user" must be an existing uuid or username.']);
    const cp = aControlPlane('coder')
      .inNamespace(ns)
      .withSpec({ templateTests: { ownerUserID: unknown } })
      .build();
    const test = aTemplateTest('nobody').inNamespace(ns).withSpec({ template: 'coder.docker' }).build();
    const step = await resolveInputs(client, test, cp, 'ktt-0123456789abcdef0123456789ab', AbortSignal.timeout(30_000));
    assert.equal('reason' in step ? `${step.kind} ${step.reason}` : step.kind, 'wait OwnerNotEligible');
    assert.match('message' in step ? step.message : '', /does not exist/);
  });
});
