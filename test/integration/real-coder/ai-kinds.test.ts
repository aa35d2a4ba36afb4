// The three AI kinds against the real Coder server, which reports its release (v2.26.1) and has none of
// their APIs: each reports the version gate of docs/reference/coder-versions.md, word for word, and asks
// none of the missing routes, counted at the recording proxy in front of Coder over two resync periods. And
// the answers of those routes on the real server next to the double's, when the double plays that release:
// the double's knobs for them are what this release does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderAIGatewayKeyClient, coderAIProviderClient, coderMCPServerClient } from '../../../generated/clients/index.ts';
import { testedCoderRelease } from '../../../src/controllers/shared/coder-object/coder-releases.ts';
import { startCoderApiDouble } from '../../harness/coder-api-double.ts';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectlOk } from '../../harness/kubectl.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';
import { eventually } from '../../harness/wait.ts';
import { aGatewayKey } from '../../fixtures/coderaigatewaykey.ts';
import { aProvider } from '../../fixtures/coderaiprovider.ts';
import { anMcpServer } from '../../fixtures/codermcpserver.ts';

const ns = 'ai';
const resyncSeconds = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The routes of the AI kinds, none of which v2.26.1 serves. */
const aiRoutes = ['/api/v2/ai/providers', '/api/v2/ai-gateway/keys', '/api/experimental/mcp/servers'];

type WithConditions = {
  status?: { coderVersion?: string; conditions?: { type: string; status: string; reason: string; message: string }[] };
};
const line = (obj: WithConditions, type: string) => {
  const c = obj.status?.conditions?.find((x) => x.type === type);
  return c ? `${c.status} ${c.reason}: ${c.message}` : 'absent';
};

describe('the AI kinds on the real Coder server, a release without their APIs', () => {
  let env: RealCoderEnvironment;

  before(async () => {
    env = await realCoderEnvironment({ recordCoderCalls: true, operatorArgs: [`--coder-resync-period=${resyncSeconds}`] });
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    await controlPlaneWithOperatorAccess(env, ns);
  });
  after(async () => {
    await env?.stop();
  });

  it(`reports the release Coder builds as (${testedCoderRelease})`, async () => {
    assert.equal(env.coder.version, testedCoderRelease);
  });

  it('reports Supported False CoderVersionUnsupported naming the release each kind needs, and asks none of their routes', async (t) => {
    const config = env.cp.adminConfig();
    const kinds = [
      {
        client: coderAIProviderClient(config),
        create: aProvider('openai').inNamespace(ns).withSpec({ type: 'openai' }).manifest(),
        supported: `False CoderVersionUnsupported: Coder ${testedCoderRelease} has no AI providers API; it needs v2.34.0 or newer. Upgrade Coder.`,
      },
      {
        client: coderMCPServerClient(config),
        create: anMcpServer('github').inNamespace(ns).manifest(),
        supported: `False CoderVersionUnsupported: Coder ${testedCoderRelease} has no MCP server configs API; it needs v2.34.0 or newer. Upgrade Coder.`,
      },
      {
        client: coderAIGatewayKeyClient(config),
        create: aGatewayKey('gateway').inNamespace(ns).manifest(),
        supported: `False CoderVersionUnsupported: Coder ${testedCoderRelease} has no AI Gateway keys API; it needs v2.36.0 or newer. Upgrade Coder.`,
      },
    ] as const;
    const from = new Date();
    for (const k of kinds) await (k.client.create as (o: unknown) => Promise<unknown>)(k.create);
    for (const k of kinds) {
      const name = k.create.metadata.name!;
      const obj = await eventually(
        `Supported of ${k.create.kind} ${name}`,
        async () => {
          const o = (await (k.client.get as (ns: string, n: string) => Promise<WithConditions>)(ns, name)) as WithConditions;
          return line(o, 'Supported') === 'absent' ? undefined : o;
        },
        { timeoutMs: 60_000 },
      );
      assert.equal(line(obj, 'Supported'), k.supported);
      assert.match(line(obj, 'Ready'), /^False Unsupported: /);
      assert.equal(obj.status!.coderVersion, testedCoderRelease);
    }
    await sleep(2 * resyncSeconds * 1000 + 2000);
    const calls = env.coderCalls!.since(from);
    t.diagnostic(
      `calls Coder received from the operator in ${Math.round((Date.now() - from.getTime()) / 1000)} s: ` +
        Object.entries(Object.groupBy(calls, (c) => `${c.method} ${c.path} ${c.status}`))
          .map(([k, v]) => `${k} ×${v!.length}`)
          .join(', '),
    );
    assert.deepEqual(
      calls.filter((c) => aiRoutes.some((r) => c.path.startsWith(r))),
      [],
      'no call to a route this release does not serve',
    );
    const buildInfo = calls.filter((c) => c.path === '/api/v2/buildinfo').length;
    assert.ok(buildInfo <= 4, `build info read once per resync period of the control plane, not per object: ${buildInfo}`);
  });

  it('answers the AI routes as the double does when it plays this release: 404, and 403 naming the experiments for /api/experimental/mcp', async () => {
    const double = await startCoderApiDouble({ tokens: ['double-owner'] });
    try {
      double.state.buildInfo.version = testedCoderRelease;
      double.state.mcpApi.experimentsOff = ['oauth2', 'mcp-server-http'];
      for (const path of aiRoutes) {
        const real = await env.coder.api('GET', path);
        const fake = await fetch(new URL(path, double.url), { headers: { 'Coder-Session-Token': 'double-owner' } });
        assert.deepEqual(
          { status: fake.status, message: ((await fake.json()) as { message: string }).message },
          { status: real.status, message: real.body.message },
          path,
        );
      }
      const mcp = await env.coder.api('GET', '/api/experimental/mcp/servers');
      assert.deepEqual(
        [mcp.status, mcp.body.message],
        [403, 'This functionality requires enabling the following experiments: oauth2, mcp-server-http'],
      );
    } finally {
      await double.stop();
    }
  });
});
