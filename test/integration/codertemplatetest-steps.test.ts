// The template-test steps against the Coder API double (a real HTTP server driven by
// schemas/coder-api/openapi.yaml): each wait and failure reason of resolving inputs, the create and its
// answers, readiness, the delete, and the build logs read over the websocket with the same-origin rule.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { CoderTemplateTest, CoderTemplateTestStatus } from '../../generated/types/codertemplatetest.ts';
import { CoderClient } from '../../src/coder/client.ts';
import { crossOriginRedirectMessage } from '../../src/coder/errors.ts';
import { coderFailureStep } from '../../src/controllers/codertemplatetest/coder-failure.ts';
import { confirmationStep, confirmCreate } from '../../src/controllers/codertemplatetest/confirm-create.ts';
import { createWorkspace } from '../../src/controllers/codertemplatetest/create-workspace.ts';
import { deleteWorkspaceStep } from '../../src/controllers/codertemplatetest/delete-workspace.ts';
import { readinessStep } from '../../src/controllers/codertemplatetest/readiness.ts';
import { resolveInputs } from '../../src/controllers/codertemplatetest/resolve-inputs.ts';
import type { Step } from '../../src/controllers/codertemplatetest/step.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { aTemplateTest } from '../fixtures/codertemplatetest.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { instantBuildScript, seedTemplate, type BuildScript, type TemplateTestSeed } from '../harness/coder-api-double/workspace-world.ts';

const token = 'operator-session-token';
const workspaceName = 'ktt-0123456789abcdef0123456789ab';
const signal = new AbortController().signal;

describe('template-test steps against the Coder API double', () => {
  let coder: CoderApiDouble;
  let other: CoderApiDouble;
  let client: CoderClient;
  let seed: TemplateTestSeed;

  before(async () => {
    coder = await startCoderApiDouble({ tokens: [token] });
    other = await startCoderApiDouble({ tokens: [token] });
    client = new CoderClient({ baseURL: coder.url, token, retries: 0 });
  });
  beforeEach(() => {
    coder.reset();
    other.reset();
    seed = seedTemplate(coder.state.world, coder.state.users);
  });
  after(async () => {
    await coder?.stop();
    await other?.stop();
  });

  const controlPlane = (ownerUserID?: string) =>
    aControlPlane('coder')
      .inNamespace('coder')
      .withSpec(ownerUserID === undefined ? {} : { templateTests: { ownerUserID } })
      .build();
  const aTest = (spec: Partial<CoderTemplateTest['spec']> = {}, status?: CoderTemplateTestStatus) =>
    aTemplateTest('t')
      .inNamespace('coder')
      .withSpec({ template: 'coder.docker', ...spec })
      .withStatus(status)
      .build();
  const line = (step: Step | { kind: 'resolved' }) => ('reason' in step ? `${step.kind} ${step.reason}` : step.kind);
  const resolve = (test = aTest(), owner: string | undefined = seed.tester.id) =>
    resolveInputs(client, test, controlPlane(owner), workspaceName, signal);

  it('resolves and pins the owner, organization, template and active version', async () => {
    const resolved = await resolve();
    assert.equal(resolved.kind, 'resolved');
    assert.deepEqual(resolved.status, {
      organizationID: seed.organization.id,
      templateID: seed.template.id,
      ownerID: seed.tester.id,
      workspaceName,
      templateVersionID: seed.version.id,
      templateVersionName: 'v1',
    });
  });

  it('takes spec.template "default.<template>" as the default organization, as Coder does, whatever it is named', async () => {
    const resolved = await resolve(aTest({ template: 'default.docker' }));
    assert.equal(resolved.kind, 'resolved');
    assert.equal(resolved.status?.organizationID, seed.organization.id);
    assert.equal(seed.organization.name, 'coder');
  });

  it("reads the tester's organization roles through GET /users/{user}/roles, never a GET of one membership (Coder has none)", async () => {
    coder.state.world.members[0]!.roles = [{ name: 'organization-workspace-access' }];
    assert.equal((await resolve()).kind, 'resolved');
    const calls = coder.requests.map((r) => `${r.method} ${r.path}`);
    assert.ok(calls.includes(`GET /api/v2/users/${seed.tester.id}/roles`), calls.join('\n'));
    assert.deepEqual(
      calls.filter((c) => c.includes('/members/')),
      [],
    );
  });

  it('gets from the double the answers Coder gives a call it does not serve, and makes them EndpointNotFound, not CoderUnavailable', async () => {
    const anyCall = client.request as unknown as (method: string, path: string, options: object) => Promise<unknown>;
    const failure = async (method: string, path: string, params: Record<string, string> = {}) =>
      anyCall.call(client, method, path, { params, retries: 0 }).then(
        () => assert.fail(`${method} ${path} succeeded`),
        (err: unknown) => err,
      );
    // A GET of the organization's template versions: Coder serves only POST on that path (coderd/coderd.go).
    const versions = await failure('GET', '/api/v2/organizations/{organization}/templateversions', {
      organization: seed.organization.id,
    });
    assert.equal((versions as { status?: number }).status, 405);
    const raw = await fetch(`${coder.url}/api/v2/organizations/${seed.organization.id}/templateversions`, {
      headers: { 'Coder-Session-Token': token },
    });
    assert.deepEqual([raw.status, raw.headers.get('allow'), await raw.text()], [405, 'POST', '']);
    const step = coderFailureStep(versions);
    assert.equal(line(step), 'fail EndpointNotFound');
    assert.match(step.message, /does not serve GET \/api\/v2\/organizations\/[0-9a-f-]+\/templateversions \(HTTP 405 Method Not Allowed\)/);
    const missingVersion = await failure('GET', '/api/v2/templateversions/{templateVersion}', {
      templateVersion: '3b7c0a52-5d55-4c44-9a3e-1f0f8e1c0d11',
    });
    assert.equal(line(coderFailureStep(missingVersion)), 'wait CoderNotFound');
    // A {user} that names no user is Coder's 400, not a 404 (coderd/httpmw/userparam.go).
    const missingUser = await failure('GET', '/api/v2/users/{user}', { user: '3b7c0a52-5d55-4c44-9a3e-1f0f8e1c0d11' });
    assert.equal((missingUser as { status?: number }).status, 400);
  });

  const waits: { name: string; arrange: () => { test?: CoderTemplateTest; owner?: string }; expected: string; message?: RegExp }[] = [
    {
      name: 'no ownerUserID',
      arrange: () => ({ owner: '' }),
      expected: 'wait OwnerNotConfigured',
      message: /spec\.templateTests\.ownerUserID/,
    },
    { name: 'an ownerUserID that is not a UUID', arrange: () => ({ owner: 'alice' }), expected: 'wait OwnerNotConfigured' },
    {
      name: 'a tester that does not exist',
      arrange: () => ({ owner: '3b7c0a52-5d55-4c44-9a3e-1f0f8e1c0d11' }),
      expected: 'wait OwnerNotEligible',
      message: /does not exist/,
    },
    {
      name: 'a suspended tester',
      arrange: () => ((seed.tester.status = 'suspended'), {}),
      expected: 'wait OwnerNotEligible',
      message: /is suspended, not active/,
    },
    {
      name: 'a tester who logs in with OIDC',
      arrange: () => ((seed.tester.login_type = 'oidc'), (seed.tester.is_service_account = false), {}),
      expected: 'wait OwnerNotEligible',
      message: /oidc/,
    },
    {
      name: 'a tester with a site role',
      arrange: () => ((seed.tester.roles = [{ name: 'template-admin' }]), {}),
      expected: 'wait OwnerNotEligible',
      message: /template-admin/,
    },
    {
      name: 'a tester with an organization admin role',
      arrange: () => ((coder.state.world.members[0]!.roles = [{ name: 'organization-admin' }]), {}),
      expected: 'wait OwnerNotEligible',
      message: /organization-admin/,
    },
    {
      name: 'a missing organization',
      arrange: () => ({ test: aTest({ template: 'nope.docker' }) }),
      expected: 'wait TemplateNotFound',
      message: /organization "nope"/,
    },
    {
      name: 'a missing template',
      arrange: () => ({ test: aTest({ template: 'coder.nope' }) }),
      expected: 'wait TemplateNotFound',
      message: /template "nope"/,
    },
    {
      name: 'a missing version by name',
      arrange: () => ({ test: aTest({ version: { name: 'v9' } }) }),
      expected: 'wait TemplateVersionNotFound',
    },
    {
      name: 'a missing version by id',
      arrange: () => ({ test: aTest({ version: { id: '9b0d3c1e-2f4a-4b5c-8d6e-7f8091a2b3c4' } }) }),
      expected: 'wait TemplateVersionNotFound',
    },
    {
      name: 'a version still importing',
      arrange: () => ((seed.version.job.status = 'running'), {}),
      expected: 'wait TemplateVersionImporting',
    },
    { name: 'a deprecated template', arrange: () => ((seed.template.deprecated = true), {}), expected: 'fail TemplateDeprecated' },
    { name: 'an archived version', arrange: () => ((seed.version.archived = true), {}), expected: 'fail TemplateVersionArchived' },
    { name: 'a failed import', arrange: () => ((seed.version.job.status = 'failed'), {}), expected: 'fail TemplateVersionImportFailed' },
  ];
  for (const row of waits) {
    it(`answers ${row.expected} for ${row.name}`, async () => {
      const { test, owner } = row.arrange();
      const step = await resolve(test, owner ?? seed.tester.id);
      assert.equal(line(step), row.expected);
      if (row.message) assert.match((step as { message: string }).message, row.message);
    });
  }

  it('fails TemplateVersionMismatch for a version id of another template', async () => {
    const another = seedTemplate(coder.state.world, coder.state.users, { template: 'kubernetes' });
    assert.equal(line(await resolve(aTest({ version: { id: another.version.id } }))), 'fail TemplateVersionMismatch');
  });

  /** The test as it is once its inputs are pinned and its create marker is stored. */
  const marked = async (test = aTest()): Promise<CoderTemplateTest> => {
    const resolved = await resolveInputs(client, test, controlPlane(seed.tester.id), workspaceName, signal);
    assert.equal(resolved.kind, 'resolved');
    return { ...test, status: { ...resolved.status, createAttemptTime: '2026-12-01T10:00:00Z' } };
  };
  const withStep = (test: CoderTemplateTest, step: Step): CoderTemplateTest => ({ ...test, status: { ...test.status, ...step.status } });

  it('creates the workspace from the pinned version, waits for the build and agents, and deletes it', async () => {
    coder.state.world.buildScripts.set(seed.version.id, {
      startReads: 2,
      agents: [
        { name: 'main', readyAfterReads: 2 },
        { name: 'dev', subAgent: true, readyAfterReads: false },
      ],
      deleteReads: 2,
    });
    let test = await marked(aTest({ parameters: [{ name: 'region', value: 'eu' }] }));
    const created = await createWorkspace(client, test, signal);
    assert.equal(line(created), 'wait WaitingForBuild');
    const post = coder.requests.find((r) => r.method === 'POST');
    assert.deepEqual(post?.body, {
      name: workspaceName,
      template_version_id: seed.version.id,
      rich_parameter_values: [{ name: 'region', value: 'eu' }],
      automatic_updates: 'never',
    });
    test = withStep(test, created);
    const seen: string[] = [];
    const agentWaits = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const step = await readinessStep(client, test, new Date(), signal);
      seen.push(line(step));
      if (step.kind === 'wait' && step.reason === 'WaitingForAgents') agentWaits.add(step.message);
      test = withStep(test, step);
      if (step.kind !== 'wait') break;
    }
    assert.deepEqual(
      [...new Set(seen)],
      ['wait WaitingForBuild', 'wait WaitingForAgents', 'wait AgentsReady', 'wait DeletingWorkspace', 'succeed'],
    );
    // The agent by its name, not its ID; the dev-container sub-agent is not waited for.
    for (const message of agentWaits)
      assert.match(message, /^Agent "main" (has not connected yet \(status connecting|is connected and not ready yet \(lifecycle)/);
    assert.ok(agentWaits.size > 0);
    assert.equal(coder.state.world.workspaces[0]!.deleted, true);
  });

  /** The test with its workspace created and its start build succeeded (one read). */
  const started = async (script: BuildScript): Promise<CoderTemplateTest> => {
    coder.state.world.buildScripts.set(seed.version.id, script);
    const test = await marked();
    return withStep(test, await createWorkspace(client, test, signal));
  };
  const agentEnds: { name: string; agent: BuildScript['agents'][number]; expected: string; message: string }[] = [
    {
      name: 'a startup script that failed',
      agent: { name: 'main', readyAfterReads: false, endsIn: 'start_error' },
      expected: 'fail AgentStartError',
      message: 'Agent "main" failed its startup script (lifecycle start_error).',
    },
    {
      name: 'a startup that timed out',
      agent: { name: 'main', readyAfterReads: false, endsIn: 'start_timeout' },
      expected: 'fail AgentStartTimeout',
      message: 'Agent "main" did not finish its startup in time (lifecycle start_timeout).',
    },
    {
      name: 'an agent that shut down',
      agent: { name: 'main', readyAfterReads: false, endsIn: 'off' },
      expected: 'fail AgentStopped',
      message: 'Agent "main" is stopped (lifecycle off).',
    },
    {
      name: 'an agent that never connected in time',
      agent: { name: 'main', readyAfterReads: false, connectionEndsIn: 'timeout' },
      expected: 'fail AgentConnectionTimeout',
      message:
        'Agent "main" did not connect within the connection_timeout its template\'s coder_agent sets (status timeout, lifecycle ready).',
    },
  ];
  for (const row of agentEnds) {
    it(`answers ${row.expected} for ${row.name}, and waits while an agent only connects`, async () => {
      let test = await started({ startReads: 1, agents: [row.agent], deleteReads: 1 });
      const seen: string[] = [];
      const messages: string[] = [];
      for (let i = 0; i < 5; i++) {
        const step = await readinessStep(client, test, new Date(), signal);
        seen.push(line(step));
        messages.push(step.message);
        test = withStep(test, step);
        if (step.kind !== 'wait') break;
      }
      assert.equal(seen.at(-1), row.expected, seen.join(', '));
      assert.equal(messages.at(-1), row.message);
    });
  }

  it('fails NoAgents for a workspace whose only agents are dev-container sub-agents', async () => {
    let test = await started({ startReads: 1, agents: [{ name: 'dev', subAgent: true, readyAfterReads: 0 }], deleteReads: 1 });
    let step = await readinessStep(client, test, new Date(), signal);
    test = withStep(test, step);
    step = await readinessStep(client, test, new Date(), signal);
    assert.equal(line(step), 'fail NoAgents');
  });

  it('fails BuildCanceled when someone cancels the start build', async () => {
    const test = await started({ startReads: 5, agents: [{ name: 'main', readyAfterReads: 0 }], deleteReads: 1 });
    await client.request('PATCH', '/api/v2/workspacebuilds/{workspaceBuild}/cancel', {
      params: { workspaceBuild: test.status!.startBuildID! },
    });
    assert.equal(line(await readinessStep(client, test, new Date(), signal)), 'fail BuildCanceled');
  });

  it('fails BuildCanceled when someone cancels the start build while it runs, which Coder ends failed with canceled_at', async () => {
    const test = await started({ startReads: 1, agents: [{ name: 'main', readyAfterReads: 0 }], deleteReads: 1, startHeld: true });
    assert.equal(line(await readinessStep(client, test, new Date(), signal)), 'wait WaitingForBuild');
    await client.request('PATCH', '/api/v2/workspacebuilds/{workspaceBuild}/cancel', {
      params: { workspaceBuild: test.status!.startBuildID! },
      query: { expect_status: 'running' },
    });
    assert.equal(line(await readinessStep(client, test, new Date(), signal)), 'fail BuildCanceled');
    const job = coder.state.world.workspaces.at(-1)!.builds[0]!.job;
    assert.deepEqual([job.status, job.error, Boolean(job.canceled_at)], ['failed', 'canceled', true]);
  });

  it('fails WorkspaceChangedExternally when another build follows the start build', async () => {
    const test = await started({ startReads: 1, agents: [{ name: 'main', readyAfterReads: 5 }], deleteReads: 1 });
    await readinessStep(client, test, new Date(), signal);
    await client.request('POST', '/api/v2/workspaces/{workspace}/builds', {
      params: { workspace: test.status!.workspaceID! },
      body: { transition: 'stop' },
    });
    assert.equal(line(await readinessStep(client, test, new Date(), signal)), 'fail WorkspaceChangedExternally');
  });

  it('fails WorkspaceDeletedExternally when someone else deleted the workspace (410)', async () => {
    const test = await started({ startReads: 1, agents: [{ name: 'main', readyAfterReads: 5 }], deleteReads: 1 });
    await readinessStep(client, test, new Date(), signal);
    await client.request('POST', '/api/v2/workspaces/{workspace}/builds', {
      params: { workspace: test.status!.workspaceID! },
      body: { transition: 'delete' },
    });
    // Someone else's read moves the delete build on; it answers 410 already.
    await assert.rejects(client.request('GET', '/api/v2/workspaces/{workspace}', { params: { workspace: test.status!.workspaceID! } }), {
      status: 410,
    });
    const step = await readinessStep(client, test, new Date(), signal);
    assert.equal(line(step), 'fail WorkspaceDeletedExternally');
    assert.equal(step.kind === 'fail' && step.workspaceDeleted?.reason, 'DeletedExternally');
  });

  it('fails DeleteBuildFailed when the delete after a pass fails', async () => {
    let test = await started({ startReads: 1, agents: [{ name: 'main', readyAfterReads: 0 }], deleteReads: 1, failingDeletes: 1 });
    const seen: string[] = [];
    for (let i = 0; i < 8; i++) {
      const step = await readinessStep(client, test, new Date(), signal);
      seen.push(line(step));
      test = withStep(test, step);
      if (step.kind !== 'wait') {
        assert.equal(step.kind === 'fail' && step.workspaceDeleted?.reason, 'DeleteRetrying');
        break;
      }
    }
    assert.equal(seen.at(-1), 'fail DeleteBuildFailed', seen.join(', '));
  });

  it('throws CoderAnswerMismatch when Coder answers about another workspace than asked', async () => {
    const test = await started({ startReads: 1, agents: [{ name: 'main', readyAfterReads: 5 }], deleteReads: 1 });
    const other = seedTemplate(coder.state.world, coder.state.users, { template: 'other', existingTester: seed.tester });
    const otherWorkspace = await client.request('POST', '/api/v2/users/{user}/workspaces', {
      params: { user: seed.tester.id },
      body: { name: 'someone-else', template_version_id: other.version.id },
    });
    // A same-origin redirect is followed, so the answer is about the other workspace.
    coder.redirect(`/api/v2/workspaces/${test.status!.workspaceID}`, { to: `/api/v2/workspaces/${otherWorkspace.id}` });
    await assert.rejects(readinessStep(client, test, new Date(), signal), { name: 'CoderAnswerMismatch' });
  });

  it('fails WorkspaceNameConflict without touching a workspace that has the test name already', async () => {
    await client.request('POST', '/api/v2/users/{user}/workspaces', {
      params: { user: seed.tester.id },
      body: { name: workspaceName, template_version_id: seed.version.id },
    });
    const step = await resolve();
    assert.equal(line(step), 'fail WorkspaceNameConflict');
    assert.equal(step.kind === 'fail' && step.workspaceDeleted?.reason, 'NotCreated');
  });

  it("fails WorkspaceNameConflict with OwnershipUnknown after an uncertain create when the live workspace is not the test's", async () => {
    const test = await marked();
    const foreign = seedTemplate(coder.state.world, coder.state.users, { template: 'foreign', existingTester: seed.tester });
    await client.request('POST', '/api/v2/users/{user}/workspaces', {
      params: { user: seed.tester.id },
      body: { name: workspaceName, template_version_id: foreign.version.id },
    });
    const step = confirmationStep(await confirmCreate(client, test, new Date(), signal));
    assert.equal(line(step), 'fail WorkspaceNameConflict');
    assert.equal(step.kind === 'fail' && step.workspaceDeleted?.reason, 'OwnershipUnknown');
  });

  it('fails BuildFailed with the last log lines read over the websocket, redacted', async () => {
    const lines = ['Error: image not found', 'token=abcdefghijklmnopqrstuvwxyz0123456789', 'terraform apply failed'];
    coder.state.world.buildScripts.set(seed.version.id, {
      startReads: 1,
      startFails: { errorCode: 'APPLY_FAILED', logLines: lines },
      agents: [],
      deleteReads: 1,
    });
    let test = await marked();
    test = withStep(test, await createWorkspace(client, test, signal));
    const step = await readinessStep(client, test, new Date(), signal);
    assert.equal(line(step), 'fail BuildFailed');
    const message = (step as { message: string }).message;
    assert.match(message, /error code APPLY_FAILED/);
    assert.match(message, /image not found/);
    assert.doesNotMatch(message, /abcdefghijklmnopqrstuvwxyz0123456789/);
    assert.ok(Buffer.byteLength((step as { eventNote?: string }).eventNote ?? '') > 0);
    const upgrade = coder.requests.find((r) => r.path.endsWith('/logs'));
    assert.equal(upgrade?.query.follow, 'true');
    assert.equal(upgrade?.headers.upgrade, 'websocket');
  });

  it('refuses a redirect of the logs websocket to another origin: the other origin gets nothing', async () => {
    coder.state.world.buildScripts.set(seed.version.id, {
      startReads: 1,
      startFails: { errorCode: 'APPLY_FAILED', logLines: ['x'] },
      agents: [],
      deleteReads: 1,
    });
    let test = await marked();
    test = withStep(test, await createWorkspace(client, test, signal));
    coder.redirect('/api/v2/workspacebuilds/', { to: `${other.url}/api/v2/workspacebuilds/` });
    const step = await readinessStep(client, test, new Date(), signal);
    assert.equal(line(step), 'fail BuildFailed');
    assert.match((step as { message: string }).message, new RegExp(crossOriginRedirectMessage));
    assert.equal(other.requests.length, 0);
  });

  it('follows a same-origin redirect of the logs websocket', async () => {
    coder.state.world.buildScripts.set(seed.version.id, {
      startReads: 1,
      startFails: { errorCode: 'APPLY_FAILED', logLines: ['kept line'] },
      agents: [],
      deleteReads: 1,
    });
    let test = await marked();
    test = withStep(test, await createWorkspace(client, test, signal));
    coder.redirect('/api/v2/workspacebuilds/', { to: '/api/v2/workspacebuilds/', times: 1 });
    const step = await readinessStep(client, test, new Date(), signal);
    assert.match((step as { message: string }).message, /kept line/);
  });

  const createAnswers: { status: number; expected: string; markerCleared: boolean }[] = [
    { status: 429, expected: 'wait CreateRetrying', markerCleared: true },
    { status: 401, expected: 'wait CreateRetrying', markerCleared: true },
    { status: 406, expected: 'wait TemplateVersionImporting', markerCleared: true },
    { status: 409, expected: 'fail WorkspaceNameConflict', markerCleared: true },
    { status: 400, expected: 'fail CreateRejected', markerCleared: true },
    { status: 503, expected: 'wait ConfirmingCreate', markerCleared: false },
  ];
  for (const row of createAnswers) {
    it(`answers ${row.expected} when the create answers ${row.status}`, async () => {
      const test = await marked();
      coder.failNext(1, row.status, { pathPrefix: '/api/v2/users/' });
      const step = await createWorkspace(client, test, signal);
      assert.equal(line(step), row.expected);
      assert.equal(
        step.status !== undefined && 'createAttemptTime' in step.status && step.status.createAttemptTime === undefined,
        row.markerCleared,
      );
    });
  }

  it('confirms an uncertain create by provenance and adopts the workspace, never creating a second', async () => {
    const test = await marked();
    await createWorkspace(client, test, signal);
    const before = coder.requests.filter((r) => r.method === 'POST').length;
    const step = confirmationStep(await confirmCreate(client, test, new Date(), signal));
    assert.equal(line(step), 'wait WaitingForBuild');
    assert.equal(step.status?.workspaceID, coder.state.world.workspaces[0]!.workspace.id);
    assert.equal(coder.requests.filter((r) => r.method === 'POST').length, before);
  });

  it('keeps confirming within the settle window, then fails CreateOutcomeUnknown when nothing appeared', async () => {
    const test = await marked();
    assert.equal(
      line(confirmationStep(await confirmCreate(client, test, new Date('2026-12-01T10:01:00Z'), signal))),
      'wait ConfirmingCreate',
    );
    assert.equal(
      line(confirmationStep(await confirmCreate(client, test, new Date('2026-12-01T10:16:00Z'), signal))),
      'fail CreateOutcomeUnknown',
    );
  });

  it('takes a workspace that was deleted before its template for deleted, although Coder then answers the workspace 403', async () => {
    coder.state.world.buildScripts.set(seed.version.id, instantBuildScript);
    let test = await marked();
    test = withStep(test, await createWorkspace(client, test, signal));
    await client.request('POST', '/api/v2/workspaces/{workspace}/builds', {
      params: { workspace: test.status!.workspaceID! },
      body: { transition: 'delete' },
    });
    // The workspace is deleted; then the template may go, and reads of the workspace answer 403.
    await client.request('DELETE', '/api/v2/templates/{template}', { params: { template: seed.template.id } });
    const read = await client
      .request('GET', '/api/v2/workspaces/{workspace}', {
        params: { workspace: test.status!.workspaceID! },
        query: { include_deleted: true },
      })
      .catch((err: unknown) => err);
    assert.equal((read as { status?: number }).status, 403);
    const outcome = await deleteWorkspaceStep(client, test, new Date(), signal);
    assert.equal(outcome.state, 'deleted', JSON.stringify(outcome));
  });

  it('counts a failed delete build and retries it after a backoff', async () => {
    coder.state.world.buildScripts.set(seed.version.id, {
      startReads: 1,
      agents: [{ name: 'main', readyAfterReads: 0 }],
      deleteReads: 1,
      failingDeletes: 1,
    } satisfies BuildScript);
    let test = await marked();
    test = withStep(test, await createWorkspace(client, test, signal));
    let outcome = await deleteWorkspaceStep(client, test, new Date(), signal);
    for (let i = 0; i < 5 && outcome.state !== 'retrying'; i++) {
      test = { ...test, status: { ...test.status, ...outcome.status } };
      outcome = await deleteWorkspaceStep(client, test, new Date(), signal);
    }
    assert.equal(outcome.state, 'retrying', JSON.stringify(outcome));
    assert.equal(outcome.status?.deleteAttempts, 1);
    assert.ok(outcome.state === 'retrying' && outcome.retryInMs > 50_000 && outcome.retryInMs <= 61_000);
  });
});
