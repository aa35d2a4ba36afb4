// CoderAIProvider end to end against a real, unlicensed Coder v2.36.0 (which serves /api/v2/ai/providers
// without a license), driven with kubectl as docs/how-to/ai-resources.md says: a provider whose keys come
// from a Secret marked as a credential, `kubectl wait --for=condition=Ready`, changes of the spec and of the
// Secret that Coder follows, no write once Coder holds the spec (counted at the recording proxy over two
// resyncs), a Bedrock provider (Coder stores it without reaching AWS), settings Coder cannot remove, and a
// deletion after which Coder answers 404. What Coder stored is read from its own database, what it shows
// from its API. Last, one scripted sequence of provider calls against this server and the Coder API double
// playing v2.36.0: every answer must agree (status, message, validations, and the provider as shown).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { coderAIProviderClient } from '../../../generated/clients/index.ts';
import type { CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import { newestCheckedCoderRelease } from '../../../src/controllers/shared/coder-object/coder-releases.ts';
import { startCoderApiDouble } from '../../harness/coder-api-double.ts';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectlOk } from '../../harness/kubectl.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';
import { eventually } from '../../harness/wait.ts';
import { providerScript, sameAnswer, type ScriptAnswer } from './ai-provider-script.ts';

const ns = 'ai-providers';
const resyncSeconds = 8;
const path = '/api/v2/ai/providers';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** httpapi.ResourceNotFound of Coder. */
const notFound = { status: 404, message: 'Resource not found or you do not have access to this resource' };

// The key values, as the Secret holds them: the first ends with a newline, as `kubectl create secret
// --from-file` of a file written by an editor gives.
const keys = {
  primary: 'sk-proj-primary-000000000000001\n',
  secondary: 'sk-proj-secondary-00000000000002',
  fallback: 'sk-fallback-03',
  rotated: 'sk-proj-rotated-000000000000009',
};
const aws = { accessKeyID: 'AKIAEXAMPLE000000001', secretAccessKey: 'aws-secret-access-key-example-0001' };

type Conditions = { type: string; status: string; reason: string; message: string }[];
const line = (obj: CoderAIProvider, type: string) => {
  const c = (obj.status?.conditions as Conditions | undefined)?.find((x) => x.type === type);
  return c ? `${c.status} ${c.reason}` : 'absent';
};

const credentialSecret = (name: string, provider: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name,
    namespace: ns,
    labels: { 'coder.com/credential': 'true' },
    annotations: { 'coder.com/credential-destinations': `coderaiprovider/${provider}` },
  },
  stringData: data,
});
const provider = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'coder.com/v1alpha1',
  kind: 'CoderAIProvider',
  metadata: { name, namespace: ns },
  spec: { controlPlaneRef: { name: 'coder' }, ...spec },
});
const openai = provider('openai', {
  type: 'openai',
  apiKeys: ['primary', 'secondary', 'fallback'].map((key) => ({ secretKeyRef: { name: 'openai-keys', key } })),
});

describe(`CoderAIProvider on the real, unlicensed Coder ${newestCheckedCoderRelease}`, () => {
  let env: RealCoderEnvironment;
  let db: pg.Client;
  const providers = () => coderAIProviderClient(env.cp.adminConfig());
  const kubectl = (args: string[], input?: unknown) => kubectlOk(env.admin, args, input === undefined ? undefined : JSON.stringify(input));
  const waitReady = (name: string) => kubectl(['-n', ns, 'wait', '--for=condition=Ready', `coderaiprovider/${name}`, '--timeout=90s']);
  const inCoder = async (idOrName: string) => env.coder.ok('GET', `${path}/${idOrName}`);
  /** The key values Coder stored for a provider (its own table; no dbcrypt key is configured). */
  const storedKeys = async (providerID: string) =>
    (await db.query('SELECT id, api_key FROM ai_provider_keys WHERE provider_id = $1', [providerID])).rows as {
      id: string;
      api_key: string;
    }[];
  const writes = (from: Date) =>
    env
      .coderCalls!.since(from, path)
      .filter((c) => c.method !== 'GET')
      .map((c) => `${c.method} ${c.status}`);

  before(async () => {
    env = await realCoderEnvironment({
      coder: { version: newestCheckedCoderRelease },
      recordCoderCalls: true,
      operatorArgs: [`--coder-resync-period=${resyncSeconds}`],
    });
    await kubectl(['create', 'namespace', ns]);
    await controlPlaneWithOperatorAccess(env, ns);
    db = new pg.Client({ connectionString: env.coder.databaseURL });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await env?.stop();
  });

  it('creates a provider from a marked Secret without a license, and Coder stores the trimmed keys and shows them masked', async () => {
    const entitlements = await env.coder.ok('GET', '/api/v2/entitlements');
    assert.equal(entitlements.features.aibridge.entitlement, 'not_entitled');
    const from = new Date();
    await kubectl(['apply', '-f', '-'], credentialSecret('openai-keys', 'openai', keys));
    await kubectl(['apply', '-f', '-'], openai);
    await waitReady('openai');

    const obj = await providers().get(ns, 'openai');
    assert.deepEqual(
      ['ControlPlaneReady', 'CredentialSecretReady', 'Supported', 'Entitled', 'Synced', 'Ready'].map((t) => line(obj, t)),
      ['True ControlPlaneAvailable', 'True CredentialAccepted', 'True Supported', 'absent', 'True Applied', 'True Available'],
    );
    const held = await inCoder('openai');
    assert.equal(held.id, obj.status!.coderID);
    assert.deepEqual(
      [held.type, held.base_url, held.enabled, held.display_name, held.icon],
      ['openai', 'https://api.openai.com/v1/', true, 'openai', ''],
      'Coder shows the name where the display name is empty',
    );
    // Coder never answers a key, only its mask (aibridge/utils/mask.go): 4 characters at each end from 20, 2 from 10.
    assert.deepEqual(held.api_keys.map((k: { masked: string }) => k.masked).sort(), ['sk-p...0001', 'sk-p...0002', 'sk...03']);
    const byID = new Map(held.api_keys.map((k: { id: string; masked: string }) => [k.id, k.masked]));
    assert.deepEqual(
      obj.status!.apiKeys!.map((k) => [k.secretKey, byID.get(k.coderKeyID!), k.masked]),
      [
        ['primary', 'sk-p...0001', 'sk-p...0001'],
        ['secondary', 'sk-p...0002', 'sk-p...0002'],
        ['fallback', 'sk...03', 'sk...03'],
      ],
      'status names the id Coder gave each spec key',
    );
    const stored = await storedKeys(held.id);
    assert.deepEqual(
      stored.map((k) => k.api_key).sort(),
      [keys.primary.trim(), keys.secondary, keys.fallback].sort(),
      'Coder holds each value once, without the newline',
    );
    const shown = JSON.stringify([obj.status, (await kubectl(['-n', ns, 'describe', 'coderaiprovider', 'openai'])).toString()]);
    for (const value of Object.values(keys)) assert.ok(!shown.includes(value.trim()), 'no key in status or describe');
    assert.deepEqual(writes(from), ['POST 201']);
  });

  it('creates a Bedrock provider that Coder stores without reaching AWS, its credentials write-only', async () => {
    const from = new Date();
    await kubectl(
      ['apply', '-f', '-'],
      credentialSecret('bedrock-aws', 'bedrock', { 'access-key-id': aws.accessKeyID, 'secret-access-key': aws.secretAccessKey }),
    );
    await kubectl(
      ['apply', '-f', '-'],
      provider('bedrock', {
        type: 'bedrock',
        displayName: 'Claude on Bedrock',
        bedrock: {
          region: 'us-west-2',
          roleARN: 'arn:aws:iam::123456789012:role/Bedrock',
          accessKeyIDSecretRef: { name: 'bedrock-aws' },
          secretAccessKeySecretRef: { name: 'bedrock-aws' },
        },
      }),
    );
    await waitReady('bedrock');
    const held = await inCoder('bedrock');
    assert.equal(held.base_url, 'https://bedrock-runtime.us-west-2.amazonaws.com');
    assert.equal(held.display_name, 'Claude on Bedrock');
    assert.deepEqual(held.api_keys, []);
    const { external_id, ...settings } = held.settings;
    assert.match(external_id, /^[A-Z2-7]{26}$/, 'Coder generates the STS external id for a role');
    assert.deepEqual(settings, { _type: 'bedrock', _version: 1, region: 'us-west-2', role_arn: 'arn:aws:iam::123456789012:role/Bedrock' });
    const row = (await db.query('SELECT settings FROM ai_providers WHERE id = $1', [held.id])).rows[0] as { settings: string };
    const kept = JSON.parse(row.settings);
    assert.deepEqual(
      [kept.access_key, kept.access_key_secret],
      [aws.accessKeyID, aws.secretAccessKey],
      'Coder stores the credentials it never shows',
    );
    assert.deepEqual(writes(from), ['POST 201']);
  });

  it('writes nothing more over two resyncs once Coder holds the spec', async (t) => {
    const from = new Date();
    await sleep(2 * resyncSeconds * 1000 + 2000);
    const calls = env.coderCalls!.since(from, path);
    t.diagnostic(`calls to ${path} in two resyncs: ${calls.map((c) => `${c.method} ${c.status}`).join(', ')}`);
    assert.ok(
      calls.some((c) => c.method === 'GET'),
      'the providers are compared at each resync',
    );
    assert.deepEqual(
      writes(from),
      [],
      'nothing sent again although Coder lists the keys in its own order and shows the name as display name',
    );
  });

  it('follows a new base URL, enabled and display name with one PATCH, and a rotated key with one more, keeping the other keys', async () => {
    let from = new Date();
    await kubectl([
      '-n',
      ns,
      'patch',
      'coderaiprovider',
      'openai',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { baseURL: 'https://llm-proxy.example.com/v1/', enabled: false, displayName: 'OpenAI (corp)' } }),
    ]);
    await eventually('the changed fields in Coder', async () => {
      const held = await inCoder('openai');
      return held.base_url === 'https://llm-proxy.example.com/v1/' && held.enabled === false && held.display_name === 'OpenAI (corp)';
    });
    await sleep(resyncSeconds * 1000 + 2000);
    assert.deepEqual(writes(from), ['PATCH 200']);

    const id = (await providers().get(ns, 'openai')).status!.coderID!;
    const before = new Map((await storedKeys(id)).map((k) => [k.api_key, k.id]));
    from = new Date();
    await kubectl([
      '-n',
      ns,
      'patch',
      'secret',
      'openai-keys',
      '--type=merge',
      '-p',
      JSON.stringify({ stringData: { secondary: keys.rotated } }),
    ]);
    await eventually('the rotated key in Coder', async () =>
      (await storedKeys(id)).some((k) => k.api_key === keys.rotated) ? true : undefined,
    );
    await waitReady('openai');
    await sleep(2 * resyncSeconds * 1000 + 2000);
    assert.deepEqual(writes(from), ['PATCH 200'], 'one update for the rotation, nothing after it');
    const after = new Map((await storedKeys(id)).map((k) => [k.api_key, k.id]));
    assert.deepEqual([...after.keys()].sort(), [keys.primary.trim(), keys.rotated, keys.fallback].sort());
    assert.equal(after.get(keys.primary.trim()), before.get(keys.primary.trim()), 'the unchanged keys are kept by id');
    assert.equal(after.get(keys.fallback), before.get(keys.fallback));
    const status = (await providers().get(ns, 'openai')).status!.apiKeys!;
    assert.deepEqual(
      status.map((k) => [k.secretKey, k.coderKeyID, k.masked]),
      [
        ['primary', after.get(keys.primary.trim()), 'sk-p...0001'],
        ['secondary', after.get(keys.rotated), 'sk-p...0009'],
        ['fallback', after.get(keys.fallback), 'sk...03'],
      ],
    );
  });

  it('reports ImmutableFieldConflict when spec drops Bedrock settings that Coder cannot remove, and sends nothing', async () => {
    await kubectl(['apply', '-f', '-'], provider('claude', { type: 'anthropic', bedrock: { region: 'eu-west-1' } }));
    await waitReady('claude');
    const id = (await providers().get(ns, 'claude')).status!.coderID!;
    // What Coder does with settings null: a field not sent (codersdk/aiproviders.go, a pointer).
    const nullOnly = await env.coder.api('PATCH', `${path}/${id}`, { body: { settings: null } });
    assert.deepEqual([nullOnly.status, nullOnly.body.message], [400, 'At least one field must be provided.']);
    const nullWithName = await env.coder.api('PATCH', `${path}/${id}`, { body: { settings: null, display_name: '' } });
    assert.equal(nullWithName.status, 200);
    assert.deepEqual(nullWithName.body.settings, { _type: 'bedrock', _version: 1, region: 'eu-west-1' });

    const from = new Date();
    await kubectl([
      '-n',
      ns,
      'patch',
      'coderaiprovider',
      'claude',
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'remove', path: '/spec/bedrock' }]),
    ]);
    const obj = await eventually('Synced ImmutableFieldConflict', async () => {
      const o = await providers().get(ns, 'claude');
      return line(o, 'Synced') === 'False ImmutableFieldConflict' ? o : undefined;
    });
    assert.match(
      (obj.status!.conditions as Conditions).find((c) => c.type === 'Synced')!.message,
      /has settings of type bedrock that spec no longer sets, and Coder cannot remove a provider's settings through its API/,
    );
    await sleep(resyncSeconds * 1000 + 2000);
    assert.deepEqual(writes(from), [], 'no update Coder would ignore or refuse');
    assert.deepEqual((await inCoder('claude')).settings, { _type: 'bedrock', _version: 1, region: 'eu-west-1' });
    await kubectl([
      '-n',
      ns,
      'patch',
      'coderaiprovider',
      'claude',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { bedrock: { region: 'eu-west-1' } } }),
    ]);
    await waitReady('claude');
    assert.deepEqual(writes(from), []);
  });

  it('deletes the provider in Coder with the object; Coder then answers 404, lists it no more and takes the name again', async () => {
    const id = (await providers().get(ns, 'openai')).status!.coderID!;
    const from = new Date();
    await kubectl(['-n', ns, 'delete', 'coderaiprovider', 'openai', '--timeout=60s']);
    assert.deepEqual(writes(from), ['DELETE 204']);
    for (const idOrName of [id, 'openai']) {
      const answer = await env.coder.api('GET', `${path}/${idOrName}`);
      assert.deepEqual({ status: answer.status, message: answer.body.message }, notFound);
    }
    const listed = (await env.coder.ok('GET', path)) as { name: string }[];
    assert.deepEqual(listed.map((p) => p.name).sort(), ['bedrock', 'claude']);
    const row = (await db.query('SELECT deleted, enabled FROM ai_providers WHERE id = $1', [id])).rows[0];
    assert.deepEqual(row, { deleted: true, enabled: false }, 'a soft delete: the row stays for audit');

    await kubectl(['apply', '-f', '-'], openai);
    await waitReady('openai');
    const again = await providers().get(ns, 'openai');
    assert.notEqual(again.status!.coderID, id, 'a new provider of the same name');
    assert.equal((await inCoder('openai')).id, again.status!.coderID);
  });

  it('answers a scripted sequence of provider calls as the Coder API double playing v2.36.0 does', async (t) => {
    const double = await startCoderApiDouble({ tokens: ['double-owner'] });
    try {
      double.state.buildInfo.version = newestCheckedCoderRelease;
      const real = await providerScript(env.coder.url, env.coder.owner.token);
      const fake = await providerScript(double.url, 'double-owner');
      const rows = real.map((r, i) => [r, fake[i]!] as [ScriptAnswer, ScriptAnswer]);
      t.diagnostic(rows.map(([r, f]) => `${sameAnswer(r, f) ? 'same   ' : 'DIFFERS'} ${r.status} ${r.step}`).join('\n'));
      assert.deepEqual(
        fake.map(({ step, status, body }) => ({ step, status, body })),
        real.map(({ step, status, body }) => ({ step, status, body })),
      );
      assert.deepEqual(double.violations, []);
    } finally {
      await double.stop();
    }
  });
});
