// The metrics a platform team alerts on, scraped from the operator process (under its generated RBAC, with
// the Coder API double and a real PostgreSQL) after the action that must move each one: Coder calls by route
// template and outcome, operator access per control plane, template-test results, credential refusals.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderAIProviderClient, coderControlPlaneClient, coderTemplateTestClient } from '../../generated/clients/index.ts';
import type { CoderTemplateTest } from '../../generated/types/codertemplatetest.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { aProvider } from '../fixtures/coderaiprovider.ts';
import { aTemplateTest } from '../fixtures/codertemplatetest.ts';
import { coderApiDocument } from '../harness/coder-api-double/document.ts';
import { seedTemplate, type BuildScript } from '../harness/coder-api-double/workspace-world.ts';
import { controlPlaneWithOperatorAccess, entitlementsRead } from '../harness/control-plane-with-access.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { parseSamples, sampleValue } from '../harness/prometheus.ts';
import { eventually } from '../harness/wait.ts';

const ns = 'alerts';

describe('the metrics a platform team alerts on', () => {
  let env: OperatorEnvironment;
  let testerId: string;

  const scrape = async () => (await fetch(env.operator.metricsUrl)).text();
  /** Waits until the sample's value (undefined: no such series) passes `accept`; on timeout, says what the scrape held. */
  const untilSample = async (name: string, labels: Record<string, string>, accept: number | undefined | ((v: number) => boolean)) =>
    eventually(
      `${name}${JSON.stringify(labels)} to be ${typeof accept === 'function' ? 'accepted' : accept}`,
      async () => {
        const text = await scrape();
        const value = sampleValue(text, name, labels);
        if (typeof accept === 'function' ? value !== undefined && accept(value) : value === accept) return text;
        throw new Error(
          `the scrape held:\n${text
            .split('\n')
            .filter((line) => line.startsWith(name))
            .join('\n')}`,
        );
      },
      { timeoutMs: 120_000 },
    );

  before(async () => {
    env = await operatorEnvironment();
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    testerId = seedTemplate(env.coder.state.world, env.coder.state.users, { template: 'seed' }).tester.id;
    await controlPlaneWithOperatorAccess(env, ns, 'coder', { spec: { templateTests: { ownerUserID: testerId } } });
  });
  after(async () => env?.stop());

  it('reports operator access per control plane: 1 with access, 0 without, and no series once it is deleted', async () => {
    await untilSample('coder_k8s_control_plane_operator_access_ready', { namespace: ns, name: 'coder' }, 1);
    const controlPlanes = coderControlPlaneClient(env.cp.adminConfig());
    await controlPlanes.create(aControlPlane('no-database').inNamespace(ns).manifest());
    await untilSample('coder_k8s_control_plane_operator_access_ready', { namespace: ns, name: 'no-database' }, 0);
    await controlPlanes.delete(ns, 'no-database');
    const text = await untilSample('coder_k8s_control_plane_operator_access_ready', { namespace: ns, name: 'no-database' }, undefined);
    assert.equal(sampleValue(text, 'coder_k8s_control_plane_operator_access_ready', { namespace: ns, name: 'coder' }), 1);
  });

  it("times Coder calls by method, the document's route template and outcome, never by a path with ids", async () => {
    // The control plane reads Coder's entitlements once its operator access is ready.
    await entitlementsRead(env, ns);
    const text = await untilSample(
      'coder_k8s_coder_api_request_duration_seconds_count',
      { method: 'GET', route: '/api/v2/entitlements', outcome: 'success' },
      (count) => count >= 1,
    );
    const templates = new Set(Object.keys(coderApiDocument().raw.paths as object));
    const routes = parseSamples(text)
      .filter((s) => s.name === 'coder_k8s_coder_api_request_duration_seconds_count')
      .map((s) => s.labels.route!);
    assert.ok(routes.length > 0);
    for (const route of routes) assert.ok(templates.has(route), `route label ${route} is not a path template of openapi.yaml`);
    const outcomes = new Set(['success', 'client_error', 'server_error', 'timeout', 'network_error', 'canceled', 'error']);
    for (const s of parseSamples(text).filter((s) => s.name === 'coder_k8s_coder_api_request_duration_seconds_count'))
      assert.ok(outcomes.has(s.labels.outcome!), `outcome ${s.labels.outcome}`);
  });

  it('counts template-test results once each, by result and final reason', async () => {
    const succeeds: BuildScript = { startReads: 1, agents: [{ name: 'main', readyAfterReads: 1 }], deleteReads: 1 };
    const fails: BuildScript = {
      startReads: 1,
      startFails: { errorCode: 'APPLY_FAILED', logLines: ['Error: no such image'] },
      agents: [],
      deleteReads: 1,
    };
    const world = env.coder.state.world;
    const tester = env.coder.state.users.find((u) => u.id === testerId)!;
    seedTemplate(world, env.coder.state.users, { template: 'passes', script: succeeds, existingTester: tester });
    seedTemplate(world, env.coder.state.users, { template: 'breaks', script: fails, existingTester: tester });
    const tests = coderTemplateTestClient(env.cp.adminConfig());
    for (const name of ['passes', 'breaks'])
      await tests.create(
        aTemplateTest(name)
          .inNamespace(ns)
          .withSpec({ template: `coder.${name}` })
          .manifest() as CoderTemplateTest,
      );

    await untilSample('coder_k8s_template_test_results_total', { result: 'Succeeded', reason: 'Succeeded' }, 1);
    await untilSample('coder_k8s_template_test_results_total', { result: 'Failed', reason: 'BuildFailed' }, 1);
    // Cleanup after the result writes the status again; the result is not counted a second time.
    await eventually('both workspaces cleaned up', async () =>
      (await Promise.all(['passes', 'breaks'].map((name) => tests.get(ns, name)))).every((t) =>
        t.status?.conditions?.some((c) => c.type === 'WorkspaceDeleted' && c.status === 'True'),
      ),
    );
    const text = await scrape();
    assert.equal(sampleValue(text, 'coder_k8s_template_test_results_total', { result: 'Succeeded', reason: 'Succeeded' }), 1);
    assert.equal(sampleValue(text, 'coder_k8s_template_test_results_total', { result: 'Failed', reason: 'BuildFailed' }), 1);
  });

  it('counts a credential refusal when the reason is new, not at each reconcile that finds it again', async () => {
    const core = env.cp.adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'anthropic-keys' }, stringData: { primary: 'sk-fake' } },
    });
    await coderAIProviderClient(env.cp.adminConfig()).create(
      aProvider('anthropic')
        .inNamespace(ns)
        .withSpec({ apiKeys: [{ secretKeyRef: { name: 'anthropic-keys', key: 'primary' } }] })
        .manifest(),
    );
    const refusals = (reason: string) => ({ kind: 'CoderAIProvider', reason });
    await untilSample('coder_k8s_credential_refusals_total', refusals('NotMarkedAsCredential'), 1);

    // Marked, but for another provider: a new reason, counted once.
    await kubectlOk(env.admin, ['-n', ns, 'label', 'secret', 'anthropic-keys', 'coder.com/credential=true']);
    await kubectlOk(env.admin, [
      '-n',
      ns,
      'annotate',
      'secret',
      'anthropic-keys',
      'coder.com/credential-destinations=coderaiprovider/other',
    ]);
    await untilSample('coder_k8s_credential_refusals_total', refusals('DestinationNotListed'), 1);

    // A change of the Secret reconciles the provider, which finds the same refusal.
    const reconciles = (text: string) =>
      parseSamples(text)
        .filter((s) => s.name === 'controller_runtime_reconcile_total' && s.labels.controller === 'coderaiprovider')
        .reduce((sum, s) => sum + s.value, 0);
    const before = reconciles(await scrape());
    await kubectlOk(env.admin, ['-n', ns, 'annotate', 'secret', 'anthropic-keys', 'example.com/touched=yes']);
    const text = await eventually('the provider to be reconciled again', async () => {
      const scraped = await scrape();
      return reconciles(scraped) > before ? scraped : undefined;
    });
    assert.equal(sampleValue(text, 'coder_k8s_credential_refusals_total', refusals('NotMarkedAsCredential')), 1);
    assert.equal(sampleValue(text, 'coder_k8s_credential_refusals_total', refusals('DestinationNotListed')), 1);
  });
});
