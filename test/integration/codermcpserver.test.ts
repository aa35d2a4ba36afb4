// CoderMCPServer end to end: the operator as its own process under its generated RBAC, a control plane
// with operator access (real PostgreSQL), and the Coder API double serving MCP server configs at
// /api/experimental/mcp/servers as v2.36.0 does. Resync period 6 s.
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderMCPServerClient, type CoderMCPServerClient } from '../../generated/clients/index.ts';
import {
  assertNoSecretsShown,
  assertQuiet,
  coderFailures,
  conditionsOf,
  deleteWithOrphanPolicy,
  deletionHeldByCoder,
  reportsFailureThenRecovers,
  reportsInvalidSpec,
  sleep,
  startCoderObjectSuite,
  tenantWithCreateRight,
  warningEvent,
  type CoderObjectSuite,
} from '../harness/coder-object-suite.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import type { OperatorEnvironment } from '../harness/operator-environment.ts';
import { eventually } from '../harness/wait.ts';
import { anMcpServer } from '../fixtures/codermcpserver.ts';

const ns = 'mcp';
/** Another tenant's namespace, with its own control plane on the same Coder. */
const tenant = 'mcp-tenant-b';
const resyncSeconds = 6;
const mcpPath = '/api/experimental/mcp/servers';
/** A path of Coder's API reference after v2.36.0 that no release serves. */
const unreleasedPath = '/api/v2/ai-gateway/mcp-servers';
const devBuild = 'v0.0.0-devel+46868242';

describe('CoderMCPServer controller', () => {
  let suite: CoderObjectSuite;
  let env: OperatorEnvironment;
  let core: CoreV1Api;
  let servers: CoderMCPServerClient;
  const secretValues: string[] = [];

  before(async () => {
    suite = await startCoderObjectSuite(ns, resyncSeconds, (e) => {
      e.coder.state.buildInfo.version = 'v2.36.0';
    });
    ({ env, core } = suite);
    servers = coderMCPServerClient(env.cp.adminConfig());
  });
  after(() => env?.stop());

  const { condition, conditions, waitCondition } = conditionsOf(() => servers, ns);
  const message = async (name: string, type: string) =>
    (await servers.get(ns, name)).status?.conditions?.find((c) => c.type === type)?.message ?? '';
  const marked = (name: string, data: Record<string, string>, destinations = 'codermcpserver/*'): V1Secret => ({
    metadata: { name, labels: { 'coder.com/credential': 'true' }, annotations: { 'coder.com/credential-destinations': destinations } },
    stringData: data,
  });
  const stored = (slug: string) => env.coder.state.mcpServers.find((s) => s.config.slug === slug);
  const writesSince = (from: number) => env.coder.requests.slice(from).filter((r) => r.method !== 'GET' && r.path.includes('/mcp'));

  it('registers an MCP server with its API key from a marked Secret, and reports Ready Available', async () => {
    await core.createNamespacedSecret({
      namespace: ns,
      body: marked('github-mcp', { 'api-key': 'Bearer ghp-first-0001' }, 'codermcpserver/github'),
    });
    secretValues.push('ghp-first-0001');
    await servers.create(
      anMcpServer('github')
        .inNamespace(ns)
        .withSpec({
          availability: 'default_on',
          auth: { type: 'apiKey', apiKey: { valueSecretRef: { name: 'github-mcp' } } },
          tools: { deny: ['delete_repository'] },
        })
        .manifest(),
    );
    await waitCondition('github', 'Ready', 'True Available');
    await kubectlOk(env.admin, ['-n', ns, 'wait', '--for=condition=Ready', 'codermcpserver/github', '--timeout=30s']);
    const obj = await servers.get(ns, 'github');
    const inCoder = stored('github')!;
    assert.equal(obj.status!.coderID, inCoder.config.id);
    assert.equal(obj.status!.apiPath, mcpPath);
    assert.deepEqual(obj.status!.hasSecrets, { oauth2Secret: false, apiKey: true, customHeaders: false });
    assert.match(obj.status!.appliedSecretHashes!['apiKey.value']!, /^sha256:[0-9a-f]{64}$/);
    assert.equal(inCoder.secrets.api_key_value, 'Bearer ghp-first-0001');
    assert.deepEqual(
      [inCoder.config.auth_type, inCoder.config.api_key_header, inCoder.config.availability, inCoder.config.enabled],
      ['api_key', 'Authorization', 'default_on', true],
    );
    assert.deepEqual(inCoder.config.tool_deny_list, ['delete_repository']);
    assert.deepEqual(await conditions('github', ['ControlPlaneReady', 'CredentialSecretReady', 'Supported', 'Synced']), {
      ControlPlaneReady: 'True ControlPlaneAvailable',
      CredentialSecretReady: 'True CredentialAccepted',
      Supported: 'True ExperimentalAPI',
      Synced: 'True Applied',
    });
  });

  it('sends one PATCH for a spec change without the unchanged secret, and resends a rotated secret once', async () => {
    let from = env.coder.requests.length;
    await servers.mergePatch(ns, 'github', { spec: { description: 'GitHub tools' } });
    await eventually('the description in Coder', async () => stored('github')?.config.description === 'GitHub tools');
    await sleep(resyncSeconds * 1000 + 2000);
    assert.deepEqual(
      writesSince(from).map((r) => [r.method, r.body]),
      [['PATCH', { description: 'GitHub tools' }]],
    );

    from = env.coder.requests.length;
    await core.replaceNamespacedSecret({
      namespace: ns,
      name: 'github-mcp',
      body: marked('github-mcp', { 'api-key': 'Bearer ghp-second-0002' }, 'codermcpserver/github'),
    });
    secretValues.push('ghp-second-0002');
    await eventually('the rotated key in Coder', async () => stored('github')?.secrets.api_key_value === 'Bearer ghp-second-0002');
    await sleep(resyncSeconds * 1000 + 2000);
    assert.deepEqual(
      writesSince(from).map((r) => [r.method, r.body]),
      [['PATCH', { api_key_value: 'Bearer ghp-second-0002' }]],
    );
  });

  it('repairs a change made directly in Coder within the resync period', async () => {
    stored('github')!.config.availability = 'force_on';
    await eventually('the drift repaired', async () => stored('github')!.config.availability === 'default_on', {
      timeoutMs: (resyncSeconds + 10) * 1000,
    });
  });

  it('changes the auth type with the whole new auth block, custom headers from literals and Secrets', async () => {
    await core.createNamespacedSecret({ namespace: ns, body: marked('tenant-token', { 'x-token': 'tok-0003' }, 'codermcpserver/github') });
    secretValues.push('tok-0003');
    const from = env.coder.requests.length;
    await servers.mergePatch(ns, 'github', {
      spec: {
        auth: {
          type: 'customHeaders',
          apiKey: null,
          customHeaders: {
            headers: [
              { name: 'X-Tenant', value: 'acme' },
              { name: 'X-Token', valueFrom: { secretKeyRef: { name: 'tenant-token' } } },
            ],
          },
        },
      },
    });
    await eventually('custom headers in Coder', async () => stored('github')?.config.auth_type === 'custom_headers');
    const inCoder = stored('github')!;
    assert.deepEqual(inCoder.secrets, { custom_headers: { 'X-Tenant': 'acme', 'X-Token': 'tok-0003' } });
    assert.equal(inCoder.config.api_key_header, undefined, 'the api_key fields were cleared');
    await waitCondition('github', 'Ready', 'True Available');
    await sleep(resyncSeconds * 1000 + 2000);
    assert.equal(writesSince(from).length, 1, 'one PATCH for the auth change, none after');
  });

  const credentialCases: { name: string; secret?: V1Secret; reason: string }[] = [
    {
      name: 'cred-unmarked',
      secret: { metadata: { name: 'cred-unmarked' }, stringData: { 'api-key': 'k-unmarked' } },
      reason: 'NotMarkedAsCredential',
    },
    {
      name: 'cred-elsewhere',
      secret: marked('cred-elsewhere', { 'api-key': 'k-elsewhere' }, 'coderaiprovider/*'),
      reason: 'DestinationNotListed',
    },
    { name: 'cred-missing', reason: 'SecretNotFound' },
    { name: 'cred-nokey', secret: marked('cred-nokey', { other: 'k-nokey' }), reason: 'KeyNotFound' },
  ];
  for (const row of credentialCases) {
    it(`reports ${row.reason} and sends nothing to Coder`, async () => {
      const from = env.coder.requests.length;
      if (row.secret) await core.createNamespacedSecret({ namespace: ns, body: row.secret });
      await servers.create(
        anMcpServer(row.name)
          .inNamespace(ns)
          .withSpec({ auth: { type: 'apiKey', apiKey: { valueSecretRef: { name: row.name } } } })
          .manifest(),
      );
      await waitCondition(row.name, 'CredentialSecretReady', `False ${row.reason}`);
      assert.equal(await condition(row.name, 'Ready'), 'False CredentialSecretNotReady');
      assert.equal(stored(row.name), undefined);
      assert.deepEqual(writesSince(from), []);
    });
  }

  it('leaves a config it did not create alone unless told to adopt it', async () => {
    const now = new Date().toISOString();
    env.coder.state.mcpServers.push({
      config: {
        id: crypto.randomUUID(),
        created_at: now,
        updated_at: now,
        display_name: 'by hand',
        slug: 'linear',
        url: 'https://mcp.linear.app/mcp',
        transport: 'sse',
        auth_type: 'none',
        availability: 'force_on',
        enabled: true,
      },
      secrets: {},
    });
    await servers.create(
      anMcpServer('linear').inNamespace(ns).withSpec({ displayName: 'Linear', url: 'https://mcp.linear.app/mcp' }).manifest(),
    );
    await waitCondition('linear', 'Synced', 'False AlreadyExists');
    assert.equal(await condition('linear', 'Ready'), 'False SyncFailed');
    assert.equal(stored('linear')!.config.display_name, 'by hand');
    await servers.mergePatch(ns, 'linear', { spec: { adoptExisting: true } });
    await waitCondition('linear', 'Ready', 'True Available');
    assert.deepEqual(
      [stored('linear')!.config.display_name, stored('linear')!.config.transport, stored('linear')!.config.availability],
      ['Linear', 'streamable_http', 'default_off'],
    );
  });

  it('refuses a tenant who may only create MCP servers the adoption of one another object manages, until that object is deleted', async () => {
    // Tenant A's MCP server, Ready, with its API key.
    await core.createNamespacedSecret({
      namespace: ns,
      body: marked('corp-jira-mcp', { 'api-key': 'Bearer jira-corp-0001' }, 'codermcpserver/corp-jira'),
    });
    secretValues.push('jira-corp-0001');
    await servers.create(
      anMcpServer('corp-jira')
        .inNamespace(ns)
        .withSpec({
          displayName: 'Jira',
          url: 'https://mcp.atlassian.example/v1/mcp',
          auth: { type: 'apiKey', apiKey: { valueSecretRef: { name: 'corp-jira-mcp' } } },
        })
        .manifest(),
    );
    await waitCondition('corp-jira', 'Ready', 'True Available');
    const id = stored('corp-jira')!.config.id;

    // Tenant B may only create and get MCP servers in its namespace, on a control plane of the same Coder.
    const user = await tenantWithCreateRight(suite, tenant, 'codermcpservers', 'tenant-b');
    const attack = anMcpServer('takeover')
      .inNamespace(tenant)
      .withSpec({ slug: 'corp-jira', displayName: 'Jira', url: 'https://mcp.attacker.example/mcp', adoptExisting: true })
      .manifest();
    await kubectlOk(user, ['create', '-f', '-'], JSON.stringify(attack));
    const inTenant = conditionsOf(() => servers, tenant);
    await inTenant.waitCondition('takeover', 'Ready', 'False ManagedByAnotherObject');
    assert.equal(await inTenant.condition('takeover', 'Synced'), 'False ManagedByAnotherObject');
    const refused = await servers.get(tenant, 'takeover');
    assert.match(refused.status!.conditions!.find((c) => c.type === 'Ready')!.message, /CoderMCPServer "mcp\/corp-jira"/);
    assert.equal(refused.status!.coderID, undefined);
    await warningEvent(suite, tenant, 'takeover', 'ManagedByAnotherObject');

    // Two resyncs later the config is still A's, and A is Ready.
    await sleep(2 * resyncSeconds * 1000 + 2000);
    const inCoder = stored('corp-jira')!;
    assert.equal(inCoder.config.id, id);
    assert.equal(inCoder.config.url, 'https://mcp.atlassian.example/v1/mcp');
    assert.equal(inCoder.secrets.api_key_value, 'Bearer jira-corp-0001');
    assert.equal(await condition('corp-jira', 'Ready'), 'True Available');
    assert.equal(await inTenant.condition('takeover', 'Ready'), 'False ManagedByAnotherObject');

    // A deleted with deletionPolicy Orphan: its config stays in Coder, and B adopts it, as the docs say.
    await deleteWithOrphanPolicy(servers, ns, 'corp-jira');
    await inTenant.waitCondition('takeover', 'Ready', 'True Available');
    assert.equal(stored('corp-jira')!.config.url, 'https://mcp.attacker.example/mcp');
    assert.equal((await servers.get(tenant, 'takeover')).status!.coderID, id);
    await servers.delete(tenant, 'takeover');
    await eventually('takeover gone', async () => !(await servers.list(tenant)).items.length);
    assert.equal(stored('corp-jira'), undefined, 'deleting B deletes what it adopted');
  });

  it('sends only the fields of v2.36.0, names the spec fields no release has, converges, and refuses a release without the API by version', async () => {
    await servers.create(
      anMcpServer('older')
        .inNamespace(ns)
        .withSpec({ allowInPlanMode: true, tools: { deny: ['drop'], rules: [{ tool: 'create_issue', action: 'escalate' }] } })
        .manifest(),
    );
    await waitCondition('older', 'Synced', 'False FieldUnsupported');
    assert.equal(
      await message('older', 'Synced'),
      'Applied every field except spec.tools.rules (Coder v2.36.0 has no MCP tool rules; no Coder release up to v2.36.0 has them).',
    );
    assert.equal(await condition('older', 'Supported'), 'True ExperimentalAPI');
    assert.deepEqual(
      [stored('older')!.config.allow_in_plan_mode, stored('older')!.config.tool_deny_list],
      [true, ['drop']],
      'v2.36.0 takes allow_in_plan_mode and the deny list',
    );
    let from = env.coder.requests.length;
    await sleep(resyncSeconds * 1000 + 2000);
    assert.deepEqual(writesSince(from), [], 'nothing sent again: Coder holds all it can');
    assert.ok(!env.coder.requests.some((r) => r.path.startsWith(unreleasedPath)), 'never a call to a path no release serves');

    env.coder.state.buildInfo.version = 'v2.26.1';
    await waitCondition('older', 'Supported', 'False CoderVersionUnsupported', (resyncSeconds + 10) * 1000);
    assert.equal(
      await message('older', 'Supported'),
      'Coder v2.26.1 has no MCP server configs API; it needs v2.34.0 or newer. Upgrade Coder.',
    );
    assert.equal(await condition('older', 'Ready'), 'False Unsupported');
    from = env.coder.requests.length;
    await sleep(resyncSeconds * 1000 + 2000);
    assert.deepEqual(
      env.coder.requests.slice(from).filter((r) => r.path.includes('/mcp')),
      [],
      'no call to the MCP path while Coder is too old',
    );
    env.coder.state.buildInfo.version = 'v2.36.0';
    await waitCondition('older', 'Supported', 'True ExperimentalAPI', (resyncSeconds + 10) * 1000);
  });

  it("reports Supported False ExperimentRequired with Coder's message, then EndpointNotFound when Coder answers 404", async () => {
    env.coder.state.buildInfo.version = devBuild;
    env.coder.state.mcpApi.experimentsOff = ['oauth2', 'mcp-server-http'];
    try {
      await servers.create(anMcpServer('gated').inNamespace(ns).manifest());
      await waitCondition('gated', 'Supported', 'False ExperimentRequired', (resyncSeconds + 10) * 1000);
      // Build info is read once per resync period: the message names the development build after that.
      const expected =
        `Coder ${devBuild} serves no MCP server configs API: GET ${mcpPath} answered 403 ` +
        '"This functionality requires enabling the following experiments: oauth2, mcp-server-http". ' +
        'Enable the experiments Coder names (CODER_EXPERIMENTS), or upgrade Coder.';
      await eventually(
        'the message of the development build',
        async () => ((await message('gated', 'Supported')) === expected ? true : undefined),
        {
          timeoutMs: (resyncSeconds + 10) * 1000,
        },
      );
      assert.equal(await condition('gated', 'Ready'), 'False Unsupported');
      assert.equal(await condition('gated', 'Synced'), 'absent');
      assert.equal(stored('gated'), undefined);

      // The experiments on, on a build without the route: 404, EndpointNotFound.
      env.coder.state.mcpApi = { experimentsOff: [], experimentalPath: false };
      await waitCondition('gated', 'Supported', 'False EndpointNotFound', (resyncSeconds + 10) * 1000);
      assert.equal(
        await message('gated', 'Supported'),
        `Coder ${devBuild} serves no MCP server configs API: GET ${mcpPath} answered 404 "Route not found.". Upgrade Coder.`,
      );
    } finally {
      env.coder.state.mcpApi = { experimentsOff: [], experimentalPath: true };
      env.coder.state.buildInfo.version = 'v2.36.0';
    }
    await waitCondition('gated', 'Ready', 'True Available', (resyncSeconds + 10) * 1000);
  });

  for (const row of coderFailures) {
    it(`reports Synced ${row.reason} when Coder answers ${row.status}, then recovers`, () =>
      reportsFailureThenRecovers(
        suite,
        servers,
        anMcpServer(`fails-${row.status}`).inNamespace(ns).manifest(),
        mcpPath,
        row,
        resyncSeconds,
      ));
  }

  it('reports a spec of the wrong type as InvalidSpec, naming the field, and sends nothing to Coder', () =>
    reportsInvalidSpec(
      env,
      servers,
      'codermcpservers.coder.com',
      anMcpServer('malformed').inNamespace(ns).withRawSpec({ auth: 'none' }).manifest(),
      'spec.auth',
    ));

  it('writes nothing to Kubernetes and only reads Coder at the resync in 60 s of quiet', () => assertQuiet(env, ns, resyncSeconds));

  it('reports Deleting while Coder refuses the delete, then deletes the config in Coder', async () => {
    const id = stored('github')!.config.id;
    await deletionHeldByCoder(env, servers, ns, 'github', `${mcpPath}/${id}`);
    assert.equal(stored('github'), undefined);
  });

  it('keeps the config in Coder with deletionPolicy Orphan', async () => {
    await deleteWithOrphanPolicy(servers, ns, 'linear');
    assert.ok(stored('linear'), 'an orphaned config stays in Coder');
  });

  it('never writes a secret value or the operator token to its log, status or Events', () =>
    assertNoSecretsShown(suite, servers, ns, secretValues));
});
