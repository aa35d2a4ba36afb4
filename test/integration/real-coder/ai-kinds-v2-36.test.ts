// The AI kinds against a real Coder v2.36.0, the newest release checked and the first here that serves
// MCP server configs (unlicensed): the operator registers, changes and deletes a config at
// /api/experimental/mcp/servers with the fields of v2.36.0, reports the spec fields no release has
// (tool rules) as FieldUnsupported, and then writes nothing more (counted at the recording proxy over two
// resyncs); the gateway key stops at the missing license (its routes are enterprise ones). Next to it, what
// the real server does with the fields and settings the operator leaves out, and the double's answers to the
// same requests. The provider, which Coder serves without a license, has its own suite: ai-provider-v2-36.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderAIGatewayKeyClient, coderMCPServerClient } from '../../../generated/clients/index.ts';
import { newestCheckedCoderRelease } from '../../../src/controllers/shared/coder-object/coder-releases.ts';
import { startCoderApiDouble } from '../../harness/coder-api-double.ts';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectlOk } from '../../harness/kubectl.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';
import { eventually } from '../../harness/wait.ts';
import { aGatewayKey } from '../../fixtures/coderaigatewaykey.ts';
import { anMcpServer } from '../../fixtures/codermcpserver.ts';

const ns = 'mcp-configs';
const resyncSeconds = 8;
const path = '/api/experimental/mcp/servers';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type WithConditions = { status?: { coderID?: string; conditions?: { type: string; status: string; reason: string; message: string }[] } };
const line = (obj: WithConditions, type: string) => {
  const c = obj.status?.conditions?.find((x) => x.type === type);
  return c ? `${c.status} ${c.reason}: ${c.message}` : 'absent';
};

describe(`the AI kinds on the real, unlicensed Coder ${newestCheckedCoderRelease}`, () => {
  let env: RealCoderEnvironment;
  const servers = () => coderMCPServerClient(env.cp.adminConfig());

  before(async () => {
    env = await realCoderEnvironment({
      coder: { version: newestCheckedCoderRelease },
      recordCoderCalls: true,
      operatorArgs: [`--coder-resync-period=${resyncSeconds}`],
    });
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    await controlPlaneWithOperatorAccess(env, ns);
  });
  after(async () => {
    await env?.stop();
  });

  const inCoder = async (slug: string) => ((await env.coder.ok('GET', path)) as { slug: string }[]).find((c) => c.slug === slug) as any;

  it('registers a config with the fields v2.36.0 takes, reports tool rules as no release has them, and then writes nothing more', async (t) => {
    assert.equal(env.coder.version, newestCheckedCoderRelease);
    await servers().create(
      anMcpServer('github')
        .inNamespace(ns)
        .withSpec({
          availability: 'default_on',
          allowInPlanMode: true,
          tools: { deny: ['delete_repository'], rules: [{ tool: 'create_issue', action: 'escalate' }] },
        })
        .manifest(),
    );
    const obj = await eventually(
      'Synced of the MCP server',
      async () => {
        const o = (await servers().get(ns, 'github')) as WithConditions;
        return line(o, 'Synced') === 'absent' ? undefined : o;
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(
      line(obj, 'Synced'),
      'False FieldUnsupported: Applied every field except spec.tools.rules (Coder v2.36.0 has no MCP tool rules; no Coder release up to v2.36.0 has them).',
    );
    assert.equal(
      line(obj, 'Supported'),
      `True ExperimentalAPI: Coder v2.36.0 serves ${path}; Coder may change or remove this experimental API without notice.`,
    );
    const held = await inCoder('github');
    assert.equal(held.id, obj.status!.coderID);
    assert.deepEqual(
      [held.display_name, held.url, held.availability, held.enabled, held.allow_in_plan_mode, held.tool_deny_list, held.tool_rules],
      ['GitHub', 'https://api.githubcopilot.com/mcp/', 'default_on', true, true, ['delete_repository'], undefined],
    );

    const from = new Date();
    await sleep(2 * resyncSeconds * 1000 + 2000);
    const calls = env.coderCalls!.since(from, path);
    t.diagnostic(`calls to ${path} in two resyncs: ${calls.map((c) => `${c.method} ${c.status}`).join(', ')}`);
    assert.ok(calls.length >= 1, 'the config is compared at each resync');
    assert.deepEqual(
      calls.filter((c) => c.method !== 'GET'),
      [],
      'nothing sent again: Coder holds all of the spec that it can',
    );
  });

  it('follows a spec change with one PATCH and deletes the config with the object', async () => {
    const from = new Date();
    await servers().mergePatch(ns, 'github', { spec: { description: 'GitHub tools' } });
    await eventually('the description in Coder', async () =>
      (await inCoder('github'))?.description === 'GitHub tools' ? true : undefined,
    );
    assert.deepEqual(
      env
        .coderCalls!.since(from, path)
        .filter((c) => c.method !== 'GET')
        .map((c) => `${c.method} ${c.status}`),
      ['PATCH 200'],
    );
    await servers().delete(ns, 'github');
    await eventually('the config gone from Coder and the object from Kubernetes', async () => {
      const gone = !(await servers().list(ns)).items.some((o) => o.metadata?.name === 'github');
      return gone && !(await inCoder('github')) ? true : undefined;
    });
    assert.ok(env.coderCalls!.since(from, path).some((c) => c.method === 'DELETE' && c.status === 204));
  });

  it('reports the gateway key as not entitled on the unlicensed server, without calling its routes, which Coder keeps for Premium', async () => {
    const from = new Date();
    await coderAIGatewayKeyClient(env.cp.adminConfig()).create(aGatewayKey('gateway').inNamespace(ns).manifest());
    const obj = await eventually(
      'Entitled',
      async () =>
        ((o) => (line(o, 'Entitled') === 'absent' ? undefined : o))(
          (await coderAIGatewayKeyClient(env.cp.adminConfig()).get(ns, 'gateway')) as WithConditions,
        ),
      { timeoutMs: 60_000 },
    );
    assert.equal(
      line(obj, 'Entitled'),
      'False FeatureNotEntitled: The Coder license does not include AI Gateway (feature aibridge is not_entitled); it needs Premium with the AI Governance add-on.',
    );
    assert.match(line(obj, 'Ready'), /^False NotEntitled: /);
    assert.deepEqual(
      env.coderCalls!.since(from).filter((c) => c.path.startsWith('/api/v2/ai-gateway/keys')),
      [],
    );
    // What the operator would meet there: enterprise/coderd's license check.
    const refused = await env.coder.api('GET', '/api/v2/ai-gateway/keys');
    assert.deepEqual([refused.status, refused.body.message], [403, 'AI Gateway is a Premium feature. Contact sales!']);
  });

  it('drops fields it does not know and refuses upstream-headers provider settings, as the double playing v2.36.0 does', async () => {
    // Coder ignores tool_rules on the experimental path, so sending them could never converge.
    const created = await env.coder.api('POST', path, {
      body: {
        display_name: 'Linear',
        slug: 'linear',
        url: 'https://mcp.linear.app/mcp',
        transport: 'streamable_http',
        auth_type: 'none',
        availability: 'default_off',
        tool_rules: [{ tool: 'x', action: 'enabled' }],
      },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.tool_rules, undefined);
    await env.coder.ok('DELETE', `${path}/${created.body.id}`);

    const request = {
      type: 'openai',
      name: 'headers',
      base_url: 'https://api.openai.com/v1/',
      settings: { _type: 'upstream-headers', _version: 1, headers: { 'X-Team': 'a' } },
    };
    const real = await env.coder.api('POST', '/api/v2/ai/providers', { body: request });
    const double = await startCoderApiDouble({ tokens: ['double-owner'] });
    try {
      double.state.buildInfo.version = newestCheckedCoderRelease;
      const fake = await fetch(new URL('/api/v2/ai/providers', double.url), {
        method: 'POST',
        headers: { 'Coder-Session-Token': 'double-owner', 'Content-Type': 'application/json' },
        body: JSON.stringify(request),
      });
      const fakeBody = (await fake.json()) as { message: string; detail?: string };
      assert.deepEqual(
        { status: fake.status, message: fakeBody.message, detail: fakeBody.detail },
        { status: real.status, message: real.body.message, detail: real.body.detail },
      );
    } finally {
      await double.stop();
    }
    assert.equal(real.status, 400);
  });
});
