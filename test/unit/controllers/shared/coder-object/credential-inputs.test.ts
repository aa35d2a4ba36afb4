import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { resolveCredentialInputs } from '../../../../../src/controllers/shared/coder-object/credential-inputs.ts';
import { secretHash } from '../../../../../src/controllers/shared/coder-object/secret-hash.ts';

const consumer = { apiVersion: 'coder.com/v1alpha1', kind: 'CoderAIProvider', metadata: { name: 'openai', namespace: 'ai', uid: 'u1' } };
const marked = (name: string, data: Record<string, string>): V1Secret => ({
  metadata: {
    name,
    namespace: 'ai',
    labels: { 'coder.com/credential': 'true' },
    annotations: { 'coder.com/credential-destinations': 'coderaiprovider/openai' },
  },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

describe('credential inputs', () => {
  it('removes CredentialSecretReady when spec names no Secret', () => {
    const result = resolveCredentialInputs(consumer, [], () => undefined);
    assert.deepEqual(result, { ready: true, values: new Map(), condition: undefined });
  });

  it('hands back every value, trimmed, only when all are ready', () => {
    const secrets = new Map([['keys', marked('keys', { a: 'one\n', b: 'two' })]]);
    const refs = [
      { field: 'apiKeys[0]', ref: { name: 'keys', key: 'a' } },
      { field: 'apiKeys[1]', ref: { name: 'keys', key: 'b' } },
    ];
    const ok = resolveCredentialInputs(consumer, refs, (n) => secrets.get(n));
    assert.ok(ok.ready);
    assert.deepEqual(
      [...ok.values],
      [
        ['apiKeys[0]', 'one'],
        ['apiKeys[1]', 'two'],
      ],
    );
    assert.equal(ok.condition?.reason, 'CredentialAccepted');

    const missing = resolveCredentialInputs(consumer, [...refs, { field: 'apiKeys[2]', ref: { name: 'keys', key: 'c' } }], (n) =>
      secrets.get(n),
    );
    assert.equal(missing.ready, false);
    assert.equal(missing.condition?.reason, 'KeyNotFound');
    assert.match(missing.condition!.message, /^spec\.apiKeys\[2\]: Secret "ai\/keys" has no key "c"/);
    assert.ok(!('values' in missing));
  });
});

describe('secret hashes', () => {
  it('are salted with the object UID and never contain the value', () => {
    assert.match(secretHash('u1', 'sk-value'), /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(secretHash('u1', 'sk-value'), secretHash('u2', 'sk-value'));
    assert.equal(secretHash('u1', 'sk-value'), secretHash('u1', 'sk-value'));
  });
});
