// CoderAIProvider end to end: the operator as its own process under its generated RBAC, a control plane
// with operator access (real PostgreSQL), and the Coder API double serving /api/v2/ai/providers from v2.34,
// as Coder does without a license (the double's aibridge feature is not entitled here). The resync period
// is 6 s so that drift repair and the quiet period fit in a test. test/integration/real-coder/
// ai-provider-v2-36.test.ts drives the same kind against a real Coder v2.36.0.
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderAIProviderClient, type CoderAIProviderClient } from '../../generated/clients/index.ts';
import type { RecordedRequest } from '../harness/coder-api-double.ts';
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
import { aProvider } from '../fixtures/coderaiprovider.ts';

const ns = 'ai';
/** Another tenant's namespace, with its own control plane on the same Coder. */
const tenant = 'ai-tenant-b';
const resyncSeconds = 6;
const providersPath = '/api/v2/ai/providers';

describe('CoderAIProvider controller', () => {
  let suite: CoderObjectSuite;
  let env: OperatorEnvironment;
  let core: CoreV1Api;
  let providers: CoderAIProviderClient;
  const secretValues: string[] = [];

  before(async () => {
    suite = await startCoderObjectSuite(ns, resyncSeconds, (e) => {
      e.coder.state.buildInfo.version = 'v2.36.0';
      e.coder.state.entitlements.features.aibridge = { entitlement: 'not_entitled', enabled: false };
    });
    ({ env, core } = suite);
    providers = coderAIProviderClient(env.cp.adminConfig());
  });
  after(() => env?.stop());

  const { condition, conditions, waitCondition } = conditionsOf(() => providers, ns);
  const conditionMessage = async (name: string, type: string) =>
    (await providers.get(ns, name)).status?.conditions?.find((c) => c.type === type)?.message ?? '';
  /** A Secret marked as a credential for the given providers (or not marked at all). */
  const keySecret = (name: string, data: Record<string, string>, destinations?: string): V1Secret => ({
    metadata: {
      name,
      ...(destinations !== undefined
        ? { labels: { 'coder.com/credential': 'true' }, annotations: { 'coder.com/credential-destinations': destinations } }
        : {}),
    },
    stringData: data,
  });
  const stored = (name: string) => env.coder.state.aiProviders.find((p) => p.provider.name === name && !p.deleted);
  const writesTo = (name: string, from: number) =>
    env.coder.requests.slice(from).filter((r) => r.method !== 'GET' && r.path.startsWith(providersPath) && bodyNames(r, name));
  const bodyNames = (r: RecordedRequest, name: string) =>
    r.method === 'POST' ? (r.body as { name?: string }).name === name : r.path.endsWith(`/${stored(name)?.provider.id ?? name}`);

  it('creates the provider with the key of a marked Secret, reports Ready Available and routes, and never shows the key', async () => {
    await core.createNamespacedSecret({
      namespace: ns,
      body: keySecret('openai-keys', { primary: 'sk-first-0001' }, 'coderaiprovider/openai'),
    });
    secretValues.push('sk-first-0001');
    const manifest = aProvider('openai')
      .inNamespace(ns)
      .withSpec({ type: 'openai', apiKeys: [{ secretKeyRef: { name: 'openai-keys', key: 'primary' } }] })
      .manifest();
    await providers.create(manifest);
    await waitCondition('openai', 'Ready', 'True Available');
    await kubectlOk(env.admin, ['-n', ns, 'wait', '--for=condition=Ready', 'coderaiprovider/openai', '--timeout=30s']);
    const obj = await providers.get(ns, 'openai');
    const inCoder = stored('openai')!;
    assert.equal(obj.status!.coderID, inCoder.provider.id);
    assert.deepEqual(
      inCoder.keys.map((k) => k.value),
      ['sk-first-0001'],
    );
    assert.equal(inCoder.provider.base_url, 'https://api.openai.com/v1/');
    assert.equal(inCoder.provider.enabled, true);
    assert.deepEqual(obj.status!.routes, {
      embedded: 'http://coder.example.com/api/v2/ai-gateway/openai/',
      legacy: 'http://coder.example.com/api/v2/aibridge/openai/',
    });
    assert.equal(obj.status!.apiKeys![0]!.coderKeyID, inCoder.keys[0]!.id);
    assert.match(obj.status!.apiKeys![0]!.hash!, /^sha256:[0-9a-f]{64}$/);
    assert.equal(obj.status!.coderVersion, 'v2.36.0');
    assert.deepEqual(await conditions('openai', ['ControlPlaneReady', 'CredentialSecretReady', 'Supported', 'Entitled', 'Synced']), {
      ControlPlaneReady: 'True ControlPlaneAvailable',
      CredentialSecretReady: 'True CredentialAccepted',
      Supported: 'True Supported',
      Entitled: 'absent',
      Synced: 'True Applied',
    });
    assert.equal(obj.status!.apiKeys![0]!.masked, 'sk...01', 'the mask Coder shows for a key of 13 characters');
    assert.ok(!JSON.stringify(obj.status).includes('sk-first-0001'), 'the key is not in status');
  });

  it('sends one PATCH for a spec change, without the unchanged key', async () => {
    const from = env.coder.requests.length;
    await providers.mergePatch(ns, 'openai', { spec: { displayName: 'OpenAI (corp)' } });
    await eventually('the new display name in Coder', async () => stored('openai')?.provider.display_name === 'OpenAI (corp)');
    await sleep(resyncSeconds * 1000 + 2000);
    const writes = writesTo('openai', from);
    assert.deepEqual(
      writes.map((r) => [r.method, r.body]),
      [['PATCH', { display_name: 'OpenAI (corp)' }]],
    );
  });

  it('resends a rotated key once, and an unchanged key never', async () => {
    const from = env.coder.requests.length;
    const keyBefore = stored('openai')!.keys[0]!.id;
    await core.replaceNamespacedSecret({
      namespace: ns,
      name: 'openai-keys',
      body: keySecret('openai-keys', { primary: 'sk-second-0002' }, 'coderaiprovider/openai'),
    });
    secretValues.push('sk-second-0002');
    await eventually('the rotated key in Coder', async () => stored('openai')?.keys[0]?.value === 'sk-second-0002');
    await sleep(resyncSeconds * 1000 + 2000);
    const writes = writesTo('openai', from);
    assert.deepEqual(
      writes.map((r) => [r.method, r.body]),
      [['PATCH', { api_keys: [{ api_key: 'sk-second-0002' }] }]],
    );
    const obj = await providers.get(ns, 'openai');
    assert.notEqual(obj.status!.apiKeys![0]!.coderKeyID, keyBefore);
    assert.equal(obj.status!.apiKeys![0]!.coderKeyID, stored('openai')!.keys[0]!.id);
  });

  it('repairs a change made directly in Coder within the resync period', async () => {
    const inCoder = stored('openai')!;
    inCoder.provider.enabled = false;
    inCoder.provider.base_url = 'https://elsewhere.example.com/';
    await eventually(
      'the drift repaired',
      async () => inCoder.provider.enabled && inCoder.provider.base_url === 'https://api.openai.com/v1/',
      {
        timeoutMs: (resyncSeconds + 10) * 1000,
      },
    );
  });

  const credentialCases: { name: string; secret?: V1Secret; key: string; reason: string }[] = [
    { name: 'cred-unmarked', secret: keySecret('cred-unmarked', { k: 'sk-unmarked-1' }), key: 'k', reason: 'NotMarkedAsCredential' },
    {
      name: 'cred-elsewhere',
      secret: keySecret('cred-elsewhere', { k: 'sk-elsewhere-1' }, 'coderaiprovider/other, codermcpserver/cred-elsewhere'),
      key: 'k',
      reason: 'DestinationNotListed',
    },
    { name: 'cred-missing', key: 'k', reason: 'SecretNotFound' },
    { name: 'cred-nokey', secret: keySecret('cred-nokey', { other: 'sk-nokey-1' }, 'coderaiprovider/*'), key: 'k', reason: 'KeyNotFound' },
  ];
  for (const row of credentialCases) {
    it(`reports ${row.reason} and sends nothing to Coder`, async () => {
      const from = env.coder.requests.length;
      if (row.secret) await core.createNamespacedSecret({ namespace: ns, body: row.secret });
      await providers.create(
        aProvider(row.name)
          .inNamespace(ns)
          .withSpec({ type: 'anthropic', apiKeys: [{ secretKeyRef: { name: row.name, key: row.key } }] })
          .manifest(),
      );
      await waitCondition(row.name, 'CredentialSecretReady', `False ${row.reason}`);
      assert.equal(await condition(row.name, 'Ready'), 'False CredentialSecretNotReady');
      assert.equal(await condition(row.name, 'Stalled'), 'True CredentialSecretNotReady');
      const message = (await providers.get(ns, row.name)).status!.conditions!.find((c) => c.type === 'CredentialSecretReady')!.message;
      assert.match(message, new RegExp(`Secret "${ns}/${row.name}"`));
      assert.equal(stored(row.name), undefined);
      assert.deepEqual(writesTo(row.name, from), []);
    });
  }

  it('takes the key once the Secret is marked for it', async () => {
    await core.replaceNamespacedSecret({
      namespace: ns,
      name: 'cred-unmarked',
      body: keySecret('cred-unmarked', { k: 'sk-unmarked-1' }, 'coderaiprovider/cred-unmarked'),
    });
    await waitCondition('cred-unmarked', 'Ready', 'True Available');
    assert.equal(await condition('cred-unmarked', 'Stalled'), 'absent');
    assert.deepEqual(
      stored('cred-unmarked')!.keys.map((k) => k.value),
      ['sk-unmarked-1'],
    );
    secretValues.push('sk-unmarked-1', 'sk-elsewhere-1', 'sk-nokey-1');
  });

  it('leaves a provider it did not create alone unless told to adopt it, and refuses another type', async () => {
    const now = new Date().toISOString();
    const foreign = (name: string, type: 'openai' | 'anthropic') => ({
      provider: {
        id: crypto.randomUUID(),
        type,
        name,
        display_name: 'by hand',
        enabled: true,
        base_url: 'https://api.openai.com/v1/',
        settings: null,
        created_at: now,
        updated_at: now,
      },
      keys: [{ id: crypto.randomUUID(), value: 'sk-by-hand-0000', created_at: now }],
      bedrockSecrets: {},
      deleted: false,
    });
    env.coder.state.aiProviders.push(foreign('taken', 'openai'), foreign('typed', 'openai'));
    await providers.create(aProvider('taken').inNamespace(ns).withSpec({ type: 'openai' }).manifest());
    await waitCondition('taken', 'Synced', 'False AlreadyExists');
    assert.equal(await condition('taken', 'Ready'), 'False SyncFailed');
    assert.equal(stored('taken')!.provider.display_name, 'by hand');
    await providers.mergePatch(ns, 'taken', { spec: { adoptExisting: true } });
    await waitCondition('taken', 'Ready', 'True Available');
    assert.equal(stored('taken')!.provider.display_name, '');
    assert.deepEqual(stored('taken')!.keys, [], 'the adopted keys are replaced by spec.apiKeys (none)');

    await providers.create(aProvider('typed').inNamespace(ns).withSpec({ type: 'anthropic', adoptExisting: true }).manifest());
    await waitCondition('typed', 'Synced', 'False ImmutableFieldConflict');
  });

  it('refuses a tenant who may only create providers the adoption of one another object manages, until that object is deleted', async () => {
    // Tenant A's provider, Ready, with its central key.
    await core.createNamespacedSecret({
      namespace: ns,
      body: keySecret('corp-openai-keys', { primary: 'sk-corp-0001' }, 'coderaiprovider/corp-openai'),
    });
    secretValues.push('sk-corp-0001');
    await providers.create(
      aProvider('corp-openai')
        .inNamespace(ns)
        .withSpec({ type: 'openai', apiKeys: [{ secretKeyRef: { name: 'corp-openai-keys', key: 'primary' } }] })
        .manifest(),
    );
    await waitCondition('corp-openai', 'Ready', 'True Available');
    const id = stored('corp-openai')!.provider.id;

    // Tenant B may only create and get providers in its namespace, on a control plane of the same Coder.
    const user = await tenantWithCreateRight(suite, tenant, 'coderaiproviders', 'tenant-b');
    const attack = aProvider('takeover')
      .inNamespace(tenant)
      .withSpec({ type: 'openai', providerName: 'corp-openai', adoptExisting: true, baseURL: 'https://llm.attacker.example/v1/' })
      .manifest();
    await kubectlOk(user, ['create', '-f', '-'], JSON.stringify(attack));
    const inTenant = conditionsOf(() => providers, tenant);
    await inTenant.waitCondition('takeover', 'Ready', 'False ManagedByAnotherObject');
    assert.equal(await inTenant.condition('takeover', 'Synced'), 'False ManagedByAnotherObject');
    const refused = await providers.get(tenant, 'takeover');
    assert.match(refused.status!.conditions!.find((c) => c.type === 'Ready')!.message, /CoderAIProvider "ai\/corp-openai"/);
    assert.equal(refused.status!.coderID, undefined);
    await warningEvent(suite, tenant, 'takeover', 'ManagedByAnotherObject');
    const readyReason = await kubectlOk(user, [
      '-n',
      tenant,
      'get',
      'coderaiprovider',
      'takeover',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Ready")].reason}',
    ]);
    assert.equal(readyReason, 'ManagedByAnotherObject', 'the tenant sees why with its own get');
    // The docs' command that lists the objects waiting on another one.
    const waiting = await kubectlOk(env.admin, [
      'get',
      'coderaiproviders,codermcpservers',
      '-A',
      '-o',
      'jsonpath={range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name} {.status.conditions[?(@.type=="Synced")].reason}{"\\n"}{end}',
    ]);
    assert.deepEqual(
      waiting.split('\n').filter((l) => l.includes('ManagedByAnotherObject')),
      [`CoderAIProvider ${tenant}/takeover ManagedByAnotherObject`],
    );

    // Two resyncs later the provider is still A's, and A is Ready.
    await sleep(2 * resyncSeconds * 1000 + 2000);
    const inCoder = env.coder.state.aiProviders.find((x) => x.provider.id === id)!;
    assert.equal(inCoder.provider.base_url, 'https://api.openai.com/v1/');
    assert.deepEqual(
      inCoder.keys.map((k) => k.value),
      ['sk-corp-0001'],
    );
    assert.equal(await condition('corp-openai', 'Ready'), 'True Available');
    assert.equal(await inTenant.condition('takeover', 'Ready'), 'False ManagedByAnotherObject');

    // A deleted (deletionPolicy Delete): its provider goes from Coder, and B creates its own, as the docs say.
    await providers.delete(ns, 'corp-openai');
    await inTenant.waitCondition('takeover', 'Ready', 'True Available');
    assert.equal(env.coder.state.aiProviders.find((x) => x.provider.id === id)!.deleted, true);
    const created = stored('corp-openai')!;
    assert.equal(created.provider.base_url, 'https://llm.attacker.example/v1/');
    assert.equal((await providers.get(tenant, 'takeover')).status!.coderID, created.provider.id);
    await providers.delete(tenant, 'takeover');
    await eventually('takeover gone', async () => !(await providers.list(tenant)).items.length);
  });

  for (const row of coderFailures) {
    it(`reports Synced ${row.reason} when Coder answers ${row.status}, then recovers`, async () => {
      const name = `fails-${row.status}`;
      await reportsFailureThenRecovers(
        suite,
        providers,
        aProvider(name).inNamespace(ns).withSpec({ type: 'openai' }).manifest(),
        providersPath,
        row,
        resyncSeconds,
      );
      assert.equal(stored(name)?.provider.name, name);
    });
  }

  it('reports FieldUnsupported for an icon on v2.35, which has no provider icons, applies the other fields, and sends it on v2.36', async () => {
    env.coder.state.buildInfo.version = 'v2.35.3';
    await eventually('the operator to see v2.35.3', async () => (await providers.get(ns, 'openai')).status?.coderVersion === 'v2.35.3', {
      timeoutMs: (resyncSeconds + 10) * 1000,
    });
    await providers.create(
      aProvider('iconic').inNamespace(ns).withSpec({ type: 'anthropic', icon: '/icon/anthropic.svg', displayName: 'Iconic' }).manifest(),
    );
    await waitCondition('iconic', 'Synced', 'False FieldUnsupported');
    assert.equal(
      await conditionMessage('iconic', 'Synced'),
      'Applied every field except spec.icon (Coder v2.35.3 has no provider icons; it needs v2.36.0 or newer). ' +
        'Remove the field, or upgrade Coder where a release has it.',
    );
    assert.equal(stored('iconic')!.provider.display_name, 'Iconic');
    assert.equal(stored('iconic')!.provider.icon, undefined);
    env.coder.state.buildInfo.version = 'v2.36.0';
    await waitCondition('iconic', 'Ready', 'True Available', (resyncSeconds + 10) * 1000);
    assert.equal(stored('iconic')!.provider.icon, '/icon/anthropic.svg');
  });

  it('never sends upstream-headers settings to a release (v2.36.0 decodes only bedrock), names the field, and sends them to a development build', async () => {
    const from = env.coder.requests.length;
    await providers.create(
      aProvider('headers')
        .inNamespace(ns)
        .withSpec({ type: 'openai', displayName: 'With headers', upstreamHeaders: [{ name: 'X-Team', value: 'platform' }] })
        .manifest(),
    );
    await waitCondition('headers', 'Synced', 'False FieldUnsupported');
    assert.match(
      await conditionMessage('headers', 'Synced'),
      /^Applied every field except spec\.upstreamHeaders \(Coder v2\.36\.0 has no provider settings of type upstream-headers; no Coder release up to v2\.36\.0 has them\)/,
    );
    assert.equal(stored('headers')!.provider.display_name, 'With headers');
    assert.equal(stored('headers')!.provider.settings, null);
    const sent = env.coder.requests.slice(from).filter((r) => r.path.startsWith(providersPath) && r.method !== 'GET');
    assert.ok(
      sent.length > 0 && sent.every((r) => !JSON.stringify(r.body).includes('upstream-headers')),
      'no request carried the settings',
    );
    env.coder.state.buildInfo.version = 'v0.0.0-devel+1a2b3c4';
    await waitCondition('headers', 'Ready', 'True Available', (resyncSeconds + 10) * 1000);
    assert.deepEqual(stored('headers')!.provider.settings, { _type: 'upstream-headers', _version: 1, headers: { 'X-Team': 'platform' } });
    env.coder.state.buildInfo.version = 'v2.36.0';
    await waitCondition('headers', 'Synced', 'False FieldUnsupported', (resyncSeconds + 10) * 1000);
  });

  it('reports CoderVersionUnsupported on v2.33 without calling the providers route, and recovers after an upgrade', async () => {
    env.coder.state.buildInfo.version = 'v2.33.0';
    await providers.create(aProvider('gated').inNamespace(ns).withSpec({ type: 'openai' }).manifest());
    await waitCondition('gated', 'Supported', 'False CoderVersionUnsupported', (resyncSeconds + 10) * 1000);
    await waitCondition('openai', 'Supported', 'False CoderVersionUnsupported', (resyncSeconds + 10) * 1000);
    const from = env.coder.requests.length;
    await sleep(resyncSeconds * 1000 + 2000);
    assert.deepEqual(
      env.coder.requests.slice(from).filter((r) => r.path.startsWith(providersPath)),
      [],
      'no request to the providers route while Coder is too old',
    );
    assert.equal(stored('gated'), undefined);
    env.coder.state.buildInfo.version = 'v2.34.1';
    await waitCondition('gated', 'Ready', 'True Available', (resyncSeconds + 10) * 1000);
    env.coder.state.buildInfo.version = 'v2.36.0';
  });

  it('needs no aibridge entitlement, removes the Entitled condition an older operator left, and reports GatewayDisabledOnControlPlane', async () => {
    const within = (resyncSeconds + 10) * 1000;
    const obj = await providers.get(ns, 'openai');
    const stale = {
      type: 'Entitled',
      status: 'False',
      reason: 'FeatureNotEntitled',
      message: 'The Coder license does not include AI Gateway (feature aibridge is not_entitled).',
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      observedGeneration: obj.metadata!.generation,
    };
    await providers.mergePatchStatus(ns, 'openai', { status: { conditions: [...(obj.status!.conditions ?? []), stale] } });
    await waitCondition('openai', 'Entitled', 'absent', within);
    assert.equal(await condition('openai', 'Ready'), 'True Available');
    assert.equal(env.coder.state.entitlements.features.aibridge?.entitlement, 'not_entitled');
    env.coder.state.aiGatewayEnabled = false;
    await waitCondition('openai', 'Ready', 'False GatewayDisabledOnControlPlane', within);
    assert.match(await conditionMessage('openai', 'Ready'), /neither AI Gateway clients nor Coder Agents/);
    env.coder.state.aiGatewayEnabled = true;
    await waitCondition('openai', 'Ready', 'True Available', within);
  });

  it('reports a spec of the wrong type as InvalidSpec, naming the field, and sends nothing to Coder', () =>
    reportsInvalidSpec(
      env,
      providers,
      'coderaiproviders.coder.com',
      aProvider('malformed').inNamespace(ns).withRawSpec({ type: 'openai', apiKeys: 'not-a-list' }).manifest(),
      'spec.apiKeys',
    ));

  it('writes nothing to Kubernetes and only reads Coder at the resync in 60 s of quiet', () => assertQuiet(env, ns, resyncSeconds));

  it('reports Deleting while Coder refuses the delete, then deletes the provider in Coder', async () => {
    const id = stored('openai')!.provider.id;
    await deletionHeldByCoder(env, providers, ns, 'openai', `${providersPath}/${id}`);
    assert.equal(env.coder.state.aiProviders.find((p) => p.provider.id === id)!.deleted, true);
  });

  it('keeps the provider in Coder with deletionPolicy Orphan', async () => {
    await deleteWithOrphanPolicy(providers, ns, 'iconic');
    assert.ok(stored('iconic'), 'an orphaned provider stays in Coder');
  });

  it('never writes a key or the operator token to its log, status or Events', () =>
    assertNoSecretsShown(suite, providers, ns, secretValues));
});
