// The steps of the three AI kinds against the Coder API double (a real HTTP server driven by
// schemas/coder-api/openapi.yaml), with fixed caches: the outcomes the end-to-end suites cannot reach
// cheaply (a control plane without operator access, Coder unreachable, a 404 from a version that should
// serve the API, a gateway key's entitlements that cannot be read, a provider on an unlicensed Coder).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { coderAIGatewayKeyResource } from '../../generated/clients/coderaigatewaykey.ts';
import { coderAIProviderResource } from '../../generated/clients/coderaiprovider.ts';
import { coderControlPlaneResource } from '../../generated/clients/codercontrolplane.ts';
import { coderMCPServerResource } from '../../generated/clients/codermcpserver.ts';
import type { CoderAIGatewayKey } from '../../generated/types/coderaigatewaykey.ts';
import type { CoderAIProvider } from '../../generated/types/coderaiprovider.ts';
import type { CoderMCPServer } from '../../generated/types/codermcpserver.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { CoderClient } from '../../src/coder/client.ts';
import type { GatewayKeyContext } from '../../src/controllers/coderaigatewaykey/context.ts';
import { gatewayKeyKind } from '../../src/controllers/coderaigatewaykey/reconcile.ts';
import type { ProviderContext } from '../../src/controllers/coderaiprovider/context.ts';
import { providerKind, specProblem } from '../../src/controllers/coderaiprovider/reconcile.ts';
import type { MCPServerContext } from '../../src/controllers/codermcpserver/context.ts';
import { mcpServerKind } from '../../src/controllers/codermcpserver/reconcile.ts';
import { CoderFacts } from '../../src/controllers/shared/coder-facts.ts';
import { CoderIDClaims } from '../../src/controllers/shared/coder-object/coder-id-claims.ts';
import type { Kind, KindDeps, ReconciledObject, StatusOf } from '../../src/controllers/shared/reconcile/kind.ts';
import { Outcomes, type AnyConditionChanges } from '../../src/controllers/shared/reconcile/outcome.ts';
import type { ReconcileContext } from '../../src/runtime/controller.ts';
import { controllerOwnerReference } from '../../src/runtime/object-names.ts';
import { operatorTokenMarks } from '../../src/controlplane/operator-token-marks.ts';
import type { ResourceKind } from '../../src/runtime/resource.ts';
import { cacheOf } from '../fixtures/cache.ts';
import { aGatewayKey } from '../fixtures/coderaigatewaykey.ts';
import { aProvider } from '../fixtures/coderaiprovider.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { anMcpServer } from '../fixtures/codermcpserver.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';

const token = 'operator-session-token';
const ns = 'coder';

describe('the Coder pass of the AI kinds against the Coder API double', () => {
  let coder: CoderApiDouble;
  let url: string;

  before(async () => {
    coder = await startCoderApiDouble({ tokens: [token] });
  });
  beforeEach(() => {
    coder.reset();
    coder.state.buildInfo.version = 'v2.36.0';
    coder.state.entitlements.features.aibridge = { entitlement: 'entitled', enabled: true };
    url = coder.url;
  });
  after(() => coder?.stop());

  const controlPlane = (status: CoderControlPlane['status'] = {}): CoderControlPlane =>
    aControlPlane('coder')
      .inNamespace(ns)
      .withStatus({
        url: 'http://coder.coder.svc.cluster.local:80',
        operatorAccessReady: true,
        operatorRole: 'owner',
        operatorTokenSecretRef: { name: 'coder-operator-token', key: 'token' },
        operatorTokenSecretUID: 'token-secret-uid',
        ...status,
      })
      .build();
  const tokenSecret = (cp: CoderControlPlane): V1Secret => ({
    metadata: {
      name: 'coder-operator-token',
      namespace: ns,
      uid: 'token-secret-uid',
      ownerReferences: [controllerOwnerReference(coderControlPlaneResource, cp)],
      ...operatorTokenMarks(cp),
    },
    data: { token: Buffer.from(token).toString('base64') },
  });
  function context<T>(cps: CoderControlPlane[], extra: T, resource: ResourceKind) {
    const secrets = cps.map(tokenSecret);
    return {
      resource,
      coderClient: () => new CoderClient({ baseURL: url, token, retries: 0 }),
      caches: { controlPlanes: cacheOf(...cps), secrets: cacheOf(...secrets) },
      facts: new CoderFacts({ buildInfoTtlMs: 0, entitlementsTtlMs: 0 }),
      resyncMs: 60_000,
      now: () => new Date(),
      events: { record: async () => undefined },
      logger: { debug: () => undefined },
      pending: new Map(),
      claims: new CoderIDClaims(cacheOf<CoderAIProvider>()),
      ...extra,
    };
  }
  const providerCtx = (cps: CoderControlPlane[]) => context(cps, {}, coderAIProviderResource) as unknown as ProviderContext;
  const mcpServerCtx = (cps: CoderControlPlane[]) => context(cps, {}, coderMCPServerResource) as unknown as MCPServerContext;
  const gatewayKeyCtx = (cps: CoderControlPlane[]) => context(cps, {}, coderAIGatewayKeyResource) as unknown as GatewayKeyContext;
  const signal = new AbortController().signal;
  /** What one reconcile's steps of `kind` decide (before the status write), as the assertions read it. */
  async function stepsOf<T extends ReconciledObject, Ctx extends KindDeps, Changes extends AnyConditionChanges>(
    kind: Kind<T, Ctx, Changes>,
    ctx: Ctx,
    obj: T,
  ) {
    const out = new Outcomes<StatusOf<T>, Changes>();
    await kind.steps(ctx, obj, out, { signal, logger: { debug: () => undefined } } as unknown as ReconcileContext);
    const blocker = out.stop === true ? undefined : out.stop;
    return { conditions: out.conditions, blocker, requeueAfterMs: out.requeueAfterMs, error: out.error };
  }
  const syncProvider = (ctx: ProviderContext, p: CoderAIProvider) => stepsOf(providerKind, ctx, p);
  const syncMCPServer = (ctx: MCPServerContext, s: CoderMCPServer) => stepsOf(mcpServerKind, ctx, s);
  const syncGatewayKey = (ctx: GatewayKeyContext, k: CoderAIGatewayKey) => stepsOf(gatewayKeyKind, ctx, k);
  const provider = () => aProvider('openai').inNamespace(ns).withSpec({ type: 'openai' }).build();
  const line = (c?: { status: string; reason: string }) => (c ? `${c.status} ${c.reason}` : 'absent');

  const controlPlaneRows: { name: string; cps: () => CoderControlPlane[]; reason: string; requeue?: number }[] = [
    { name: 'no control plane', cps: () => [], reason: 'ControlPlaneUnavailable', requeue: 30_000 },
    {
      name: 'a control plane without operator access',
      cps: () => [controlPlane({ operatorAccessReady: false })],
      reason: 'OperatorAccessNotReady',
      requeue: 30_000,
    },
    {
      name: 'a control plane whose operator user is not yet owner (it grants the role once it sees the object)',
      cps: () => [controlPlane({ operatorRole: 'organization-admin' })],
      reason: 'OperatorAccessNotReady',
      requeue: 30_000,
    },
  ];
  /** One pass of each kind (provider, MCP server, gateway key) with the control planes given. */
  const allKinds = (cps: CoderControlPlane[]) =>
    Promise.all([
      syncProvider(providerCtx(cps), provider()),
      syncMCPServer(mcpServerCtx(cps), anMcpServer('github').inNamespace(ns).build()),
      syncGatewayKey(gatewayKeyCtx(cps), aGatewayKey('gw').inNamespace(ns).build()),
    ]);

  for (const row of controlPlaneRows) {
    it(`reports ControlPlaneReady ${row.reason} for ${row.name}, and calls nothing`, async () => {
      for (const pass of await allKinds(row.cps())) {
        assert.equal(line(pass.conditions.ControlPlaneReady), `False ${row.reason}`);
        assert.equal(pass.blocker?.reason, 'ControlPlaneNotReady');
        assert.equal(pass.requeueAfterMs, row.requeue);
      }
      assert.deepEqual(coder.requests, []);
    });
  }

  it('reports CoderUnreachable when build info fails, and hands the error back for backoff', async () => {
    url = 'http://127.0.0.1:9';
    for (const pass of await allKinds([controlPlane()])) {
      assert.equal(line(pass.conditions.ControlPlaneReady), 'False CoderUnreachable');
      assert.equal(pass.blocker?.reason, 'ControlPlaneNotReady');
      assert.ok(pass.error);
    }
  });

  it('reports EndpointNotFound when Coder answers 404 although its version should serve the API', async () => {
    coder.failNext(1, 404, { pathPrefix: '/api/v2/ai/providers' });
    const pass = await syncProvider(providerCtx([controlPlane()]), provider());
    assert.equal(line(pass.conditions.Supported), 'False EndpointNotFound');
    assert.equal(pass.blocker?.reason, 'Unsupported');
    coder.failNext(1, 404, { pathPrefix: '/api/v2/ai-gateway/keys' });
    const key = await syncGatewayKey(gatewayKeyCtx([controlPlane()]), aGatewayKey('gw').inNamespace(ns).build());
    assert.equal(line(key.conditions.Supported), 'False EndpointNotFound');
  });

  const mcpRefusals: { name: string; shape: () => void; reason: string; calls: string[] }[] = [
    {
      name: 'a build whose /api/experimental/mcp route needs experiments that are off (as v2.26.1 answers)',
      shape: () => {
        coder.state.buildInfo.version = 'v0.0.0-devel+abc123';
        coder.state.mcpApi.experimentsOff = ['oauth2', 'mcp-server-http'];
      },
      reason: 'ExperimentRequired',
      calls: ['GET /api/experimental/mcp/servers'],
    },
    {
      name: 'a build without the MCP server configs route',
      shape: () => {
        coder.state.buildInfo.version = 'v0.0.0-devel+abc123';
        coder.state.mcpApi.experimentalPath = false;
      },
      reason: 'EndpointNotFound',
      calls: ['GET /api/experimental/mcp/servers'],
    },
    {
      name: 'release v2.26.1, older than the first with MCP server configs (v2.34.0)',
      shape: () => {
        coder.state.buildInfo.version = 'v2.26.1';
      },
      reason: 'CoderVersionUnsupported',
      calls: [],
    },
  ];
  for (const row of mcpRefusals) {
    it(`reports MCP Supported False ${row.reason} for ${row.name}: asked at most once, the next time at the resync, no error to back off`, async () => {
      row.shape();
      const pass = await syncMCPServer(mcpServerCtx([controlPlane()]), anMcpServer('github').inNamespace(ns).build());
      assert.equal(line(pass.conditions.Supported), `False ${row.reason}`);
      assert.equal(pass.blocker?.reason, 'Unsupported');
      assert.equal(pass.conditions.Synced, undefined);
      assert.equal(pass.requeueAfterMs, 60_000, 'the resync period of the context');
      assert.equal(pass.error, undefined);
      assert.deepEqual(
        coder.requests.filter((r) => r.path.includes('/mcp')).map((r) => `${r.method} ${r.path}`),
        row.calls,
      );
    });
  }

  it('reports the gateway key Entitled Unknown EntitlementsUnavailable and retries in 30 s when entitlements cannot be read', async () => {
    coder.failNext(1, 500, { pathPrefix: '/api/v2/entitlements' });
    const pass = await syncGatewayKey(gatewayKeyCtx([controlPlane()]), aGatewayKey('gw').inNamespace(ns).build());
    assert.equal(line(pass.conditions.Entitled), 'Unknown EntitlementsUnavailable');
    assert.equal(pass.blocker?.reason, 'NotEntitled');
    assert.equal(pass.requeueAfterMs, 30_000);
    assert.ok(!coder.requests.some((r) => r.path.startsWith('/api/v2/ai-gateway/keys')));
  });

  it('creates a provider on a Coder without the aibridge entitlement, never reading entitlements, as Coder needs no license for it', async () => {
    // coder/coder v2.36.0 coderd/coderd.go mounts /api/v2/ai/providers with only the API-key middleware.
    coder.state.entitlements.features.aibridge = { entitlement: 'not_entitled', enabled: false };
    const pass = await syncProvider(providerCtx([controlPlane()]), provider());
    assert.equal(pass.blocker, undefined);
    assert.equal(line(pass.conditions.Synced), 'True Applied');
    assert.ok(
      'Entitled' in pass.conditions && pass.conditions.Entitled === undefined,
      'an Entitled condition of an older operator is removed',
    );
    assert.deepEqual(
      coder.requests.filter((r) => r.path.startsWith('/api/v2/entitlements') || r.method === 'POST').map((r) => `${r.method} ${r.path}`),
      ['POST /api/v2/ai/providers'],
    );
  });

  it('reports a spec no request can be built from as InvalidSpec, naming the field', async () => {
    assert.match(
      (await specProblem(aProvider('x').withSpec({ type: 'azure' }).build())) ?? '',
      /^spec\.baseURL: is required for type azure/,
    );
    assert.match((await specProblem(aProvider('x').withRawSpec({ apiKeys: 'sk-not-a-list' }).build())) ?? '', /apiKeys/);
    assert.equal(await specProblem(aProvider('x').build()), undefined);
  });
});
