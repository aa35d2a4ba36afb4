import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schemas } from '../../../../src/coder/api-types.ts';
import { desiredProvider } from '../../../../src/controllers/coderaiprovider/desired.ts';
import {
  appliedKeys,
  createRequest,
  settingsConflict,
  updateRequest,
  type KeyInput,
} from '../../../../src/controllers/coderaiprovider/update-request.ts';
import { aProvider } from '../../../fixtures/coderaiprovider.ts';

const key = (value: string, hash = `h-${value}`): KeyInput => ({ secretName: 's', secretKey: value, value, hash });
const existing = (over: Partial<Schemas['AIProvider']> = {}): Schemas['AIProvider'] => ({
  id: 'p1',
  type: 'anthropic',
  name: 'anthropic',
  display_name: 'anthropic',
  enabled: true,
  base_url: 'https://api.anthropic.com/',
  api_keys: [{ id: 'k1', masked: 's...1' }],
  settings: null,
  ...over,
});
const status = { apiKeys: [{ secretName: 's', secretKey: 'sk-a-0001', coderKeyID: 'k1', hash: 'h-sk-a-0001' }] };

describe('provider requests', () => {
  it('defaults the base URL by type and sends an icon only to a release that has provider icons (v2.36.0)', () => {
    const p = aProvider().withSpec({ icon: '/icon/a.svg' }).build();
    const old = desiredProvider(p, 'v2.35.3');
    assert.equal(old.base_url, 'https://api.anthropic.com/');
    assert.equal(old.icon, undefined);
    assert.deepEqual(old.unsupported, ['spec.icon (Coder v2.35.3 has no provider icons; it needs v2.36.0 or newer)']);
    const current = desiredProvider(p, 'v2.36.0');
    assert.equal(current.icon, '/icon/a.svg');
    assert.deepEqual(current.unsupported, []);
  });

  for (const version of ['v2.34.0', 'v2.35.0', 'v2.36.0', 'v2.40.2']) {
    it(`never sends upstream-headers settings to release ${version}, whose decoder (through v2.36.0) knows only bedrock`, () => {
      const p = aProvider()
        .withSpec({ upstreamHeaders: [{ name: 'X-Team', value: 'a' }] })
        .build();
      const desired = desiredProvider(p, version);
      assert.equal(desired.settings, null);
      assert.deepEqual(desired.unsupported, [
        `spec.upstreamHeaders (Coder ${version} has no provider settings of type upstream-headers; no Coder release up to v2.36.0 has them)`,
      ]);
    });
  }

  it('sends icon and upstream headers to a development build, where the endpoint decides', () => {
    const p = aProvider()
      .withSpec({ icon: '/icon/a.svg', upstreamHeaders: [{ name: 'X-Team', value: 'a' }] })
      .build();
    const dev = desiredProvider(p, 'v0.0.0-devel+abc123');
    assert.equal(dev.icon, '/icon/a.svg');
    assert.deepEqual(dev.settings, { _type: 'upstream-headers', _version: 1, headers: { 'X-Team': 'a' } });
    assert.deepEqual(dev.unsupported, []);
  });

  it('creates with every key in spec order and the Bedrock credentials', () => {
    const p = aProvider()
      .withSpec({ bedrock: { region: 'us-west-2' } })
      .build();
    const body = createRequest(desiredProvider(p, 'v2.35.0'), [key('sk-a-0001'), key('sk-b-0002')], {
      'bedrock.accessKeyID': { value: 'AKIA', hash: 'h1' },
    });
    assert.deepEqual(body.api_keys, ['sk-a-0001', 'sk-b-0002']);
    assert.deepEqual(body.settings, {
      _type: 'bedrock',
      _version: 1,
      region: 'us-west-2',
      model: '',
      small_fast_model: '',
      role_arn: '',
      access_key: 'AKIA',
    });
  });

  it('sends nothing when Coder holds the spec and the key hash is unchanged', () => {
    const desired = desiredProvider(aProvider().build(), 'v2.35.0');
    assert.equal(updateRequest(existing(), desired, [key('sk-a-0001')], {}, status), undefined);
  });

  it('sends only the changed field, keeping the key by id', () => {
    const desired = desiredProvider(aProvider().withSpec({ displayName: 'A' }).build(), 'v2.35.0');
    assert.deepEqual(updateRequest(existing(), desired, [key('sk-a-0001')], {}, status), { display_name: 'A' });
  });

  it('sends the whole key set when a key is rotated, added or removed', () => {
    const desired = desiredProvider(aProvider().build(), 'v2.35.0');
    assert.deepEqual(updateRequest(existing(), desired, [key('sk-new-0009')], {}, status), { api_keys: [{ api_key: 'sk-new-0009' }] });
    assert.deepEqual(updateRequest(existing(), desired, [key('sk-a-0001'), key('sk-b-0002')], {}, status), {
      api_keys: [{ id: 'k1' }, { api_key: 'sk-b-0002' }],
    });
    assert.deepEqual(updateRequest(existing(), desired, [], {}, status), { api_keys: [] });
  });

  it('sends every key of a provider it adopts (no status), since their values are unknown', () => {
    const desired = desiredProvider(aProvider().build(), 'v2.35.0');
    assert.deepEqual(updateRequest(existing(), desired, [key('sk-a-0001')], {}, undefined), { api_keys: [{ api_key: 'sk-a-0001' }] });
  });

  it('resends a Bedrock credential only when its hash changes, and clears one spec dropped', () => {
    const p = aProvider()
      .withSpec({ bedrock: { region: 'us-west-2' } })
      .build();
    const desired = desiredProvider(p, 'v2.35.0');
    const held = existing({
      api_keys: [],
      settings: { _type: 'bedrock', _version: 1, region: 'us-west-2', model: '', small_fast_model: '', role_arn: '' },
    });
    const applied = { apiKeys: [], appliedSecretHashes: { 'bedrock.accessKeyID': 'h1', 'bedrock.secretAccessKey': 'h2' } };
    const same = { 'bedrock.accessKeyID': { value: 'AKIA', hash: 'h1' }, 'bedrock.secretAccessKey': { value: 'secret', hash: 'h2' } };
    assert.equal(updateRequest(held, desired, [], same, applied), undefined);
    const rotated = { ...same, 'bedrock.secretAccessKey': { value: 'secret2', hash: 'h3' } };
    assert.deepEqual(updateRequest(held, desired, [], rotated, applied)?.settings, {
      _type: 'bedrock',
      _version: 1,
      region: 'us-west-2',
      model: '',
      small_fast_model: '',
      role_arn: '',
      access_key_secret: 'secret2',
    });
    const dropped = updateRequest(held, desired, [], {}, applied)?.settings as Record<string, unknown>;
    assert.equal(dropped.access_key, '');
    assert.equal(dropped.access_key_secret, '');
  });

  it('maps new keys to the ids Coder gave them by the mask Coder shows, whatever order Coder answers in', () => {
    // Coder orders keys added in one request by their random ids (checked on v2.36.0).
    const answer = existing({
      api_keys: [
        { id: 'kb', masked: 's...2' },
        { id: 'ka', masked: 's...1' },
      ],
    });
    assert.deepEqual(
      appliedKeys(answer, [key('sk-a-0001'), key('sk-b-0002')]).map((k) => [k.coderKeyID, k.masked]),
      [
        ['ka', 's...1'],
        ['kb', 's...2'],
      ],
    );
  });

  it('keeps the id of a key sent by id and gives the new id to the rotated key', () => {
    const answer = existing({
      api_keys: [
        { id: 'k1', masked: 's...1' },
        { id: 'k9', masked: 'sk...09' },
      ],
    });
    const keys = [key('sk-new-0009'), key('sk-a-0001')];
    assert.deepEqual(
      appliedKeys(answer, keys, [{ api_key: 'sk-new-0009' }, { id: 'k1' }]).map((k) => k.coderKeyID),
      ['k9', 'k1'],
    );
  });

  it('sends nothing for an empty display name while Coder shows the provider name in its place', () => {
    const desired = desiredProvider(aProvider().build(), 'v2.36.0');
    assert.equal(updateRequest(existing({ display_name: 'anthropic' }), desired, [key('sk-a-0001')], {}, status), undefined);
    assert.deepEqual(updateRequest(existing({ display_name: 'By hand' }), desired, [key('sk-a-0001')], {}, status), { display_name: '' });
  });

  it('sends nothing while Coder holds the same keys in another order than spec', () => {
    const held = existing({
      api_keys: [
        { id: 'k2', masked: 's...2' },
        { id: 'k1', masked: 's...1' },
      ],
    });
    const both = {
      apiKeys: [
        { secretName: 's', secretKey: 'a', coderKeyID: 'k1', hash: 'h-sk-a-0001' },
        { secretName: 's', secretKey: 'b', coderKeyID: 'k2', hash: 'h-sk-b-0002' },
      ],
    };
    const desired = desiredProvider(aProvider().build(), 'v2.36.0');
    assert.equal(updateRequest(held, desired, [key('sk-a-0001'), key('sk-b-0002')], {}, both), undefined);
  });

  it('never sends settings null, which Coder reads as not sent, and names the settings spec dropped', () => {
    const held = existing({ settings: { _type: 'bedrock', _version: 1, region: 'us-west-2' } });
    const desired = desiredProvider(aProvider().build(), 'v2.36.0');
    assert.equal(updateRequest(held, desired, [key('sk-a-0001')], {}, status), undefined);
    assert.equal(settingsConflict(held, desired), 'bedrock');
    assert.equal(settingsConflict(existing(), desired), undefined);
    const withBedrock = desiredProvider(
      aProvider()
        .withSpec({ bedrock: { region: 'us-west-2' } })
        .build(),
      'v2.36.0',
    );
    assert.equal(settingsConflict(held, withBedrock), undefined);
    const headersLeftOut = desiredProvider(
      aProvider()
        .withSpec({ upstreamHeaders: [{ name: 'X-Team', value: 'a' }] })
        .build(),
      'v2.36.0',
    );
    assert.equal(settingsConflict(held, headersLeftOut), undefined, 'spec still sets settings, which this release cannot take');
  });
});
