// CoderTemplateTest end to end: the operator as its own process under its generated RBAC, a real control
// plane, a real PostgreSQL (for the control plane's operator access) and the Coder API double, whose builds
// follow per-template scripts. Most cases run at once, each with its own template; those that restart the
// operator run afterwards. Intervals are the Go original's (5 s polls, 60 s cleanup retry, 60 s minimum timeout).
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, coderTemplateTestClient, type CoderTemplateTestClient } from '../../generated/clients/index.ts';
import type { CoderTemplateTest } from '../../generated/types/codertemplatetest.ts';
import { crossOriginRedirectMessage } from '../../src/coder/errors.ts';
import { aTemplateTest } from '../fixtures/codertemplatetest.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { seedTemplate, type BuildScript } from '../harness/coder-api-double/workspace-world.ts';
import { createCoderDatabase } from '../harness/coder-database.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import { installOperatorRbac, startOperator, type RunningOperator } from '../harness/operator.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { grantsOf, unusedGrants, usedGrants } from '../harness/rbac-usage.ts';
import { eventually } from '../harness/wait.ts';
import { permissions as templateTestPermissions } from '../../src/controllers/codertemplatetest/permissions.ts';

const neverReady: BuildScript = { startReads: 1, agents: [{ name: 'main', readyAfterReads: false }], deleteReads: 1 };

describe('CoderTemplateTest controller', () => {
  let env: OperatorEnvironment;
  let coder: CoderApiDouble;
  let elsewhere: CoderApiDouble;
  let tests: CoderTemplateTestClient;
  let core: CoreV1Api;
  let tester: NonNullable<ReturnType<typeof seedTemplate>['tester']>;

  /** A namespace with a control plane whose operator access is ready and whose token the double accepts. */
  async function controlPlaneIn(ns: string, templateTests?: { ownerUserID?: string; allowRetain?: boolean }): Promise<void> {
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    const url = await createCoderDatabase(env.postgres);
    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'coder-db-app' }, stringData: { uri: url } } });
    const spec = { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } }, ...(templateTests ? { templateTests } : {}) };
    await coderControlPlaneClient(env.cp.adminConfig()).create(aControlPlane('coder').inNamespace(ns).withSpec(spec).manifest());
    await eventually(
      `operator access of ${ns}/coder`,
      async () => (await coderControlPlaneClient(env.cp.adminConfig()).get(ns, 'coder')).status?.operatorAccessReady,
      {
        timeoutMs: 120_000,
      },
    );
    const secret = await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
    env.coder.addToken(Buffer.from(secret.data!.token!, 'base64').toString());
  }

  before(async () => {
    env = await operatorEnvironment();
    coder = env.coder;
    elsewhere = await startCoderApiDouble();
    core = env.cp.adminConfig().makeApiClient(CoreV1Api);
    tests = coderTemplateTestClient(env.cp.adminConfig());
    tester = seedTemplate(coder.state.world, coder.state.users, { template: 'seed' }).tester;
    await controlPlaneIn('tt', { ownerUserID: tester.id });
  });
  let restarted: RunningOperator | undefined;
  after(async () => {
    await restarted?.process.stop();
    await elsewhere?.stop();
    await env?.stop();
  });

  const template = (name: string, script?: BuildScript, options: { organization?: string; member?: boolean } = {}) =>
    seedTemplate(coder.state.world, coder.state.users, {
      template: name,
      existingTester: tester,
      ...(script ? { script } : {}),
      ...options,
    });
  const create = (name: string, spec: Partial<CoderTemplateTest['spec']> = {}, ns = 'tt', annotations?: Record<string, string>) => {
    const obj = aTemplateTest(name)
      .inNamespace(ns)
      .withSpec({ template: `coder.${name}`, ...spec })
      .manifest() as CoderTemplateTest;
    if (annotations) obj.metadata.annotations = annotations;
    delete obj.metadata.uid;
    return tests.create(obj);
  };
  const get = (name: string, ns = 'tt') => tests.get(ns, name);
  const summary = (t: CoderTemplateTest) => `${t.status?.phase} ${t.status?.reason}: ${t.status?.message}`;
  const conditionOf = (t: CoderTemplateTest, type: string) => {
    const c = t.status?.conditions?.find((x) => x.type === type);
    return c ? `${c.status} ${c.reason}` : 'none';
  };
  const untilPhase = (name: string, phase: string, ns = 'tt', timeoutMs = 90_000) =>
    eventually(
      `${ns}/${name} to reach ${phase}`,
      async () => {
        const t = await get(name, ns);
        return t.status?.phase === phase ? t : undefined;
      },
      { timeoutMs },
    );
  const gone = (name: string, ns = 'tt', timeoutMs = 90_000) =>
    eventually(
      `${ns}/${name} to be gone`,
      async () => {
        try {
          await get(name, ns);
          return false;
        } catch (err) {
          return (err as { code?: number }).code === 404 || /404|not ?found/i.test((err as Error).message);
        }
      },
      { timeoutMs },
    );
  const workspaceOf = (t: CoderTemplateTest) => coder.state.world.workspaces.find((w) => w.workspace.id === t.status?.workspaceID);
  const eventsOf = async (name: string, ns = 'tt') =>
    (await env.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items.filter(
      (e) => e.regarding?.name === name,
    );

  describe('cases that run at once', { concurrency: true }, () => {
    it('succeeds: the workspace is created, its agents become ready, it is deleted, and the finalizer goes', async () => {
      template('passes', {
        startReads: 2,
        agents: [
          { name: 'main', readyAfterReads: 2 },
          { name: 'dev', subAgent: true, readyAfterReads: false },
        ],
        deleteReads: 2,
      });
      await create('passes', { parameters: [{ name: 'region', value: 'eu-west' }] });
      const done = await untilPhase('passes', 'Succeeded');
      assert.equal(done.status?.reason, 'Succeeded', summary(done));
      assert.equal(conditionOf(done, 'Ready'), 'True Succeeded');
      assert.equal(conditionOf(done, 'Reconciling'), 'False Succeeded');
      assert.equal(conditionOf(done, 'Stalled'), 'False Succeeded');
      assert.equal(conditionOf(done, 'WorkspaceDeleted'), 'True Deleted');
      assert.match(done.status?.workspaceName ?? '', /^ktt-[0-9a-f]{28}$/);
      assert.ok(done.status?.agentsReadyTime && done.status.completionTime && done.status.startTime);
      assert.equal(workspaceOf(done)?.deleted, true);
      const creates = coder.requests.filter(
        (r) =>
          r.method === 'POST' &&
          r.path === `/api/v2/users/${tester.id}/workspaces` &&
          (r.body as { name: string }).name === done.status?.workspaceName,
      );
      assert.equal(creates.length, 1);
      assert.deepEqual((creates[0]!.body as { rich_parameter_values: unknown }).rich_parameter_values, [
        { name: 'region', value: 'eu-west' },
      ]);
      await eventually('the finalizer to go', async () => !(await get('passes')).metadata.finalizers?.length);
      const columns = await kubectlOk(env.admin, ['-n', 'tt', 'get', 'codertemplatetest', 'passes']);
      assert.match(columns, /passes\s+Succeeded\s+True\s+coder\.passes\s+v1\s+Succeeded/);
      assert.ok((await eventsOf('passes')).some((e) => e.reason === 'Succeeded'));
    });

    it('runs the sample as applied: config/samples/coder_v1alpha1_codertemplatetest.yaml succeeds', async () => {
      await controlPlaneIn('coder', { ownerUserID: tester.id });
      template('docker');
      await kubectlOk(env.admin, ['apply', '-f', 'config/samples/coder_v1alpha1_codertemplatetest.yaml']);
      // What GitOps tooling and a user's script do: wait for Ready.
      await kubectlOk(env.admin, ['-n', 'coder', 'wait', '--for=condition=Ready', 'codertemplatetest/docker-active', '--timeout=120s']);
      const done = await untilPhase('docker-active', 'Succeeded', 'coder');
      assert.equal(conditionOf(done, 'WorkspaceDeleted'), 'True Deleted');
      const listed = await kubectlOk(env.admin, ['-n', 'coder', 'get', 'codertemplatetests']);
      assert.match(listed, /docker-active\s+Succeeded\s+True\s+coder\.docker\s+v1\s+Succeeded/);
    });

    it('deletes itself ttlSecondsAfterFinished after it finished', async () => {
      template('expires');
      await create('expires', { ttlSecondsAfterFinished: 3 });
      await untilPhase('expires', 'Succeeded');
      await gone('expires', 'tt', 30_000);
    });

    it('waits OwnerNotConfigured without spec.templateTests.ownerUserID, and is released at once when deleted', async () => {
      await controlPlaneIn('tt-noowner');
      template('noowner');
      await create('noowner', {}, 'tt-noowner');
      const waiting = await eventually('OwnerNotConfigured', async () => {
        const t = await get('noowner', 'tt-noowner');
        return t.status?.reason === 'OwnerNotConfigured' ? t : undefined;
      });
      assert.equal(waiting.status?.phase, 'Pending');
      assert.equal(conditionOf(waiting, 'Reconciling'), 'True OwnerNotConfigured');
      assert.match(waiting.status?.message ?? '', /spec\.templateTests\.ownerUserID/);
      await tests.delete('tt-noowner', 'noowner');
      await gone('noowner', 'tt-noowner', 15_000);
    });

    it('waits ControlPlaneNotReady for a missing control plane and OperatorAccessNotReady without operator access', async () => {
      await kubectlOk(env.admin, ['create', 'namespace', 'tt-noaccess']);
      await coderControlPlaneClient(env.cp.adminConfig()).create(aControlPlane('coder').inNamespace('tt-noaccess').manifest());
      template('noaccess');
      await create('noaccess', { controlPlaneRef: { name: 'missing' } }, 'tt-noaccess');
      await create('noaccess2', { template: 'coder.noaccess' }, 'tt-noaccess');
      const missing = await eventually('ControlPlaneNotReady', async () => {
        const t = await get('noaccess', 'tt-noaccess');
        return t.status?.reason === 'ControlPlaneNotReady' ? t : undefined;
      });
      assert.match(missing.status?.message ?? '', /"tt-noaccess\/missing" \(spec\.controlPlaneRef\) does not exist/);
      const noAccess = await eventually('OperatorAccessNotReady', async () => {
        const t = await get('noaccess2', 'tt-noaccess');
        return t.status?.reason === 'OperatorAccessNotReady' ? t : undefined;
      });
      assert.equal(noAccess.status?.phase, 'Pending');
      for (const name of ['noaccess', 'noaccess2']) await tests.delete('tt-noaccess', name);
      await gone('noaccess', 'tt-noaccess', 15_000);
      await gone('noaccess2', 'tt-noaccess', 15_000);
    });

    const waits: { name: string; arrange: () => void; spec?: Partial<CoderTemplateTest['spec']>; reason: string; message: RegExp }[] = [
      {
        name: 'notamember',
        arrange: () => template('notamember', undefined, { organization: 'other-org', member: false }),
        spec: { template: 'other-org.notamember' },
        reason: 'OwnerNotEligible',
        message: /not a member of organization other-org/,
      },
      { name: 'missingtemplate', arrange: () => undefined, reason: 'TemplateNotFound', message: /no template "missingtemplate"/ },
      {
        name: 'missingversion',
        arrange: () => template('missingversion'),
        spec: { version: { name: 'v9' } },
        reason: 'TemplateVersionNotFound',
        message: /v9/,
      },
    ];
    for (const row of waits) {
      it(`waits ${row.reason} (${row.name}), sends no create, and is released at once when deleted`, async () => {
        row.arrange();
        await create(row.name, row.spec);
        const waiting = await eventually(row.reason, async () => {
          const t = await get(row.name);
          return t.status?.reason === row.reason ? t : undefined;
        });
        assert.equal(waiting.status?.phase, 'Pending');
        assert.match(waiting.status?.message ?? '', row.message);
        assert.equal(conditionOf(waiting, 'Stalled'), `False ${row.reason}`);
        await eventually(`a Warning Event ${row.reason}`, async () =>
          (await eventsOf(row.name)).some((e) => e.type === 'Warning' && e.reason === row.reason),
        );
        await tests.delete('tt', row.name);
        await gone(row.name, 'tt', 15_000);
        assert.ok(
          !coder.requests.some((r) => r.method === 'POST' && (r.body as { name?: string })?.name === waiting.status?.workspaceName),
        );
      });
    }

    it('fails BuildFailed with the last build log lines in its message and Event, then deletes the workspace', async () => {
      template('buildfails', {
        startReads: 1,
        startFails: { errorCode: 'APPLY_FAILED', logLines: ['Pulling image', 'Error: image "acme/dev:nope" not found'] },
        agents: [],
        deleteReads: 1,
      });
      await create('buildfails');
      const failed = await untilPhase('buildfails', 'Failed');
      assert.equal(failed.status?.reason, 'BuildFailed', summary(failed));
      assert.match(failed.status?.message ?? '', /APPLY_FAILED.*acme\/dev:nope/);
      assert.equal(conditionOf(failed, 'Stalled'), 'True BuildFailed');
      assert.equal(conditionOf(failed, 'Ready'), 'False BuildFailed');
      const event = await eventually('the BuildFailed Event', async () =>
        (await eventsOf('buildfails')).find((e) => e.reason === 'BuildFailed'),
      );
      assert.match(event.note ?? '', /Pulling image\n.*acme\/dev:nope/);
      const cleaned = await eventually('WorkspaceDeleted True', async () => {
        const t = await get('buildfails');
        return conditionOf(t, 'WorkspaceDeleted') === 'True Deleted' ? t : undefined;
      });
      assert.equal(cleaned.status?.phase, 'Failed', 'cleanup never changes the result');
      assert.equal(workspaceOf(cleaned)?.deleted, true);
      await eventually('the finalizer to go', async () => !(await get('buildfails')).metadata.finalizers?.length);
    });

    it('refuses a cross-origin redirect of the build-log websocket: BuildFailed says so, the other origin got nothing', async () => {
      // The build runs until the redirect is in place: only then may it fail and its logs be read.
      const script: BuildScript = {
        startReads: 1,
        startHeld: true,
        startFails: { errorCode: 'APPLY_FAILED', logLines: ['secret-free line'] },
        agents: [],
        deleteReads: 1,
      };
      template('logsredirect', script);
      await create('logsredirect');
      const running = await eventually('the start build id', async () => (await get('logsredirect')).status?.startBuildID);
      coder.redirect(`/api/v2/workspacebuilds/${running}/logs`, { to: `${elsewhere.url}/api/v2/workspacebuilds/${running}/logs` });
      script.startHeld = false;
      const failed = await untilPhase('logsredirect', 'Failed');
      assert.equal(failed.status?.reason, 'BuildFailed');
      assert.match(failed.status?.message ?? '', new RegExp(crossOriginRedirectMessage));
      assert.equal(elsewhere.requests.length, 0);
      assert.ok(coder.requests.some((r) => r.path === `/api/v2/workspacebuilds/${running}/logs` && r.headers.upgrade === 'websocket'));
      assert.match(readFileSync(env.operator.logFile, 'utf8'), new RegExp(crossOriginRedirectMessage));
    });

    it('refuses a cross-origin redirect of an HTTP call: the test waits CoderUnavailable, the other origin got nothing', async () => {
      template('httpredirect', neverReady);
      await create('httpredirect', { timeoutSeconds: 600 });
      const id = await eventually('the workspace id', async () => (await get('httpredirect')).status?.workspaceID);
      const prefix = `/api/v2/workspaces/${id}`;
      coder.redirect(prefix, { to: `${elsewhere.url}${prefix}` });
      const waiting = await eventually('CoderUnavailable naming the refusal', async () => {
        const t = await get('httpredirect');
        return t.status?.reason === 'CoderUnavailable' && t.status.message?.includes(crossOriginRedirectMessage) ? t : undefined;
      });
      assert.equal(waiting.status?.phase, 'Running');
      assert.equal(elsewhere.requests.length, 0);
      coder.clearKnobs(prefix);
      await tests.delete('tt', 'httpredirect');
      await gone('httpredirect');
      assert.equal(workspaceOf(waiting)?.deleted, true);
    });

    it('fails EndpointNotFound at once, naming the call, when Coder answers 405 (it does not serve the call): not CoderUnavailable', async () => {
      const { version } = template('unserved');
      coder.failNext(1, 405, { pathPrefix: `/api/v2/templateversions/${version.id}` });
      await create('unserved');
      const failed = await untilPhase('unserved', 'Failed');
      assert.equal(failed.status?.reason, 'EndpointNotFound', summary(failed));
      assert.match(failed.status?.message ?? '', new RegExp(`does not serve GET /api/v2/templateversions/${version.id} \\(HTTP 405`));
      assert.equal(conditionOf(failed, 'Stalled'), 'True EndpointNotFound');
      assert.equal(conditionOf(failed, 'WorkspaceDeleted'), 'True NotCreated');
      // The version lookup was asked once: nothing waited for a call Coder does not serve to come back.
      assert.equal(coder.requests.filter((r) => r.path === `/api/v2/templateversions/${version.id}`).length, 1);
    });

    it('fails DeadlineExceeded when an agent never connects, naming the agent, the timeout field and its last state, then deletes the workspace', async () => {
      template('neverready', neverReady);
      await create('neverready', { timeoutSeconds: 60 });
      const failed = await untilPhase('neverready', 'Failed', 'tt', 120_000);
      assert.equal(failed.status?.reason, 'DeadlineExceeded', summary(failed));
      assert.equal(
        failed.status?.message,
        'Agent "main" did not connect within spec.timeoutSeconds (60s); it was last seen with status connecting, lifecycle created.',
      );
      await eventually(
        'WorkspaceDeleted True Deleted',
        async () => conditionOf(await get('neverready'), 'WorkspaceDeleted') === 'True Deleted',
      );
      assert.equal(workspaceOf(failed)?.deleted, true);
    });

    it('fails ControlPlaneGone when the control plane is deleted while a workspace may exist, and releases the finalizer', async () => {
      await controlPlaneIn('tt-gone', { ownerUserID: tester.id });
      template('cpgone', neverReady);
      await create('cpgone', { timeoutSeconds: 600 }, 'tt-gone');
      await eventually('the workspace id', async () => (await get('cpgone', 'tt-gone')).status?.workspaceID);
      await coderControlPlaneClient(env.cp.adminConfig()).delete('tt-gone', 'coder');
      const failed = await untilPhase('cpgone', 'Failed', 'tt-gone');
      assert.equal(failed.status?.reason, 'ControlPlaneGone', summary(failed));
      assert.equal(conditionOf(failed, 'WorkspaceDeleted'), 'Unknown ControlPlaneGone');
      await eventually('the finalizer to go', async () => !(await get('cpgone', 'tt-gone')).metadata.finalizers?.length);
    });

    it('keeps the finalizer while Coder is down during cleanup, retries with backoff, and deletes the workspace once Coder is back', async (context) => {
      template('coderdown', neverReady);
      await create('coderdown', { timeoutSeconds: 600 });
      const id = await eventually('the workspace id', async () => (await get('coderdown')).status?.workspaceID);
      const prefix = `/api/v2/workspaces/${id}`;
      coder.failNext(Infinity, 503, { pathPrefix: prefix, message: 'Coder is restarting.' });
      await tests.delete('tt', 'coderdown');
      const held = await eventually('WorkspaceDeleted False ControlPlaneUnavailable', async () => {
        const t = await get('coderdown');
        return conditionOf(t, 'WorkspaceDeleted') === 'False ControlPlaneUnavailable' ? t : undefined;
      });
      assert.ok(held.metadata.finalizers?.includes('coder.com/template-test-cleanup'));
      assert.equal(held.status?.phase, 'Running', 'cleanup never changes the phase');
      const attemptsBefore = coder.requests.filter((r) => r.path.startsWith(prefix)).length;
      await new Promise((r) => setTimeout(r, 20_000));
      const attemptsAfter = coder.requests.filter((r) => r.path.startsWith(prefix)).length;
      context.diagnostic(`cleanup requests while Coder answered 503, in 20 s: ${attemptsAfter - attemptsBefore}`);
      assert.ok(attemptsAfter - attemptsBefore <= 1, `cleanup waits 60 s between attempts (${attemptsAfter - attemptsBefore} in 20 s)`);
      assert.ok((await get('coderdown')).metadata.finalizers?.includes('coder.com/template-test-cleanup'));
      coder.clearKnobs(prefix);
      await gone('coderdown', 'tt', 150_000);
      assert.equal(workspaceOf(held)?.deleted, true);
    });

    it('backs off a 429 storm per object: the backoff grows and is capped, at most one request per second over 60 s', async (context) => {
      template('storm', neverReady);
      await create('storm', { timeoutSeconds: 600 });
      const id = await eventually('the workspace id', async () => (await get('storm')).status?.workspaceID);
      const prefix = `/api/v2/workspaces/${id}`;
      coder.failNext(Infinity, 429, { pathPrefix: prefix, message: 'You have been rate limited.' });
      const start = coder.requests.length;
      await new Promise((r) => setTimeout(r, 60_000));
      const during = coder.requests.slice(start).filter((r) => r.path.startsWith(prefix)).length;
      context.diagnostic(`requests of the object that reached the double in 60 s of 429s: ${during}`);
      // 2 s doubling with ±20 % jitter: at most 2+4+8+16+32 s fit in 60 s, so no more than 7 requests; a fixed
      // 1 s or 5 s poll would send 12 to 60.
      assert.ok(during >= 3 && during <= 7, `requests in 60 s of 429s: ${during}`);
      assert.ok(during <= 60);
      const t = await get('storm');
      assert.equal(t.status?.reason, 'CoderUnavailable');
      assert.match(t.status?.message ?? '', /429/);
      coder.clearKnobs(prefix);
      await tests.delete('tt', 'storm');
      await gone('storm');
    });

    it('ignores coder.com/deletion-policy=retain unless the control plane allows it, and says so', async () => {
      template('retainignored', { ...neverReady, agents: [] });
      await create('retainignored', {}, 'tt', { 'coder.com/deletion-policy': 'retain' });
      const cleaned = await eventually('WorkspaceDeleted True Deleted', async () => {
        const t = await get('retainignored');
        return conditionOf(t, 'WorkspaceDeleted') === 'True Deleted' ? t : undefined;
      });
      assert.equal(cleaned.status?.reason, 'NoAgents');
      assert.match(
        cleaned.status?.conditions?.find((c) => c.type === 'WorkspaceDeleted')?.message ?? '',
        /ignores coder\.com\/deletion-policy=retain/,
      );
      assert.equal(workspaceOf(cleaned)?.deleted, true);
    });

    it('retains the workspace when allowed, releases the finalizer, and deletes it once the policy says delete', async () => {
      await controlPlaneIn('tt-retain', { ownerUserID: tester.id, allowRetain: true });
      template('retained', { ...neverReady, agents: [] });
      await create('retained', {}, 'tt-retain', { 'coder.com/deletion-policy': 'retain' });
      const kept = await eventually('WorkspaceDeleted False Retained and no finalizer', async () => {
        const t = await get('retained', 'tt-retain');
        return conditionOf(t, 'WorkspaceDeleted') === 'False Retained' && !t.metadata.finalizers?.length ? t : undefined;
      });
      assert.equal(kept.status?.phase, 'Failed');
      assert.equal(workspaceOf(kept)?.deleted, false);
      await tests.mergePatch('tt-retain', 'retained', { metadata: { annotations: { 'coder.com/deletion-policy': 'delete' } } });
      await eventually(
        'WorkspaceDeleted True Deleted',
        async () => conditionOf(await get('retained', 'tt-retain'), 'WorkspaceDeleted') === 'True Deleted',
      );
      assert.equal(workspaceOf(kept)?.deleted, true);
      await eventually('the finalizer to go again', async () => !(await get('retained', 'tt-retain')).metadata.finalizers?.length);
    });

    it('refuses a change of the spec with the schema message', async () => {
      template('immutable');
      await create('immutable', { timeoutSeconds: 600 });
      const result = await kubectl(env.admin, [
        '-n',
        'tt',
        'patch',
        'codertemplatetest',
        'immutable',
        '--type=merge',
        '-p',
        '{"spec":{"timeoutSeconds":700}}',
      ]);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /spec is immutable, create a new CoderTemplateTest/);
    });
  });

  describe('an operator restart', () => {
    it('resumes a running test from status and never creates a second workspace', async () => {
      template('restart', { startReads: 1, agents: [{ name: 'main', readyAfterReads: 6 }], deleteReads: 1 });
      await create('restart', { timeoutSeconds: 600 });
      const running = await eventually('the workspace id', async () => {
        const t = await get('restart');
        return t.status?.workspaceID ? t : undefined;
      });
      await env.operator.process.stop();
      restarted = await startOperator(env.cp, await installOperatorRbac(env.cp), { args: [`--test-only-coder-url=${coder.url}`] });
      const done = await untilPhase('restart', 'Succeeded', 'tt', 120_000);
      assert.equal(done.status?.workspaceID, running.status?.workspaceID);
      const creates = coder.requests.filter(
        (r) => r.method === 'POST' && (r.body as { name?: string })?.name === done.status?.workspaceName,
      );
      assert.equal(creates.length, 1);
    });
  });

  // Last, so that the audit log holds the whole suite.
  describe('its RBAC', () => {
    it('used every verb its declared permissions grant, as the audit log of this suite shows', async () => {
      const used = usedGrants(
        await env.cp.auditEvents({
          username: 'system:serviceaccount:coder-system:coder-k8s',
          stages: ['ResponseStarted', 'ResponseComplete'],
        }),
      );
      const unused = unusedGrants(grantsOf(templateTestPermissions), used, new Map());
      assert.deepEqual(unused, [], `granted but never used: ${unused.join(', ')}`);
    });
  });
});
