import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schemas } from '../../../../src/coder/api-types.ts';
import { defaultProxyIcon, isTokenOf, proxyCreate, proxyPatch } from '../../../../src/controllers/coderworkspaceproxy/registration.ts';

const held = (over: Partial<Schemas['WorkspaceProxy']> = {}): Schemas['WorkspaceProxy'] =>
  ({
    id: '3b8f1f0e-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
    name: 'eu-west',
    display_name: 'Europe West',
    icon_url: '/emojis/1f1ea-1f1fa.png',
    ...over,
  }) as Schemas['WorkspaceProxy'];

describe('workspace proxy requests', () => {
  it('creates with the display name and icon `coder wsproxy create` gives when spec sets none', () => {
    assert.deepEqual(proxyCreate({ name: 'eu-west', displayName: '', icon: '' }), {
      name: 'eu-west',
      display_name: 'eu-west',
      icon: defaultProxyIcon,
    });
    assert.deepEqual(proxyCreate({ name: 'eu-west', displayName: 'EU', icon: '/icon/eu.svg' }), {
      name: 'eu-west',
      display_name: 'EU',
      icon: '/icon/eu.svg',
    });
  });

  it('changes a proxy with every field Coder requires, keeping what spec leaves unset as Coder holds it', () => {
    assert.deepEqual(proxyPatch(held(), { name: 'eu-west', displayName: '', icon: '' }, true), {
      id: held().id,
      name: 'eu-west',
      display_name: 'Europe West',
      icon: '/emojis/1f1ea-1f1fa.png',
      regenerate_token: true,
    });
    assert.deepEqual(proxyPatch(held(), { name: 'europe', displayName: 'EU', icon: '' }, false), {
      id: held().id,
      name: 'europe',
      display_name: 'EU',
      icon: '/emojis/1f1ea-1f1fa.png',
      regenerate_token: false,
    });
  });

  it('never sends an empty display name or icon, which Coder refuses, for a proxy Coder holds without them', () => {
    const patch = proxyPatch(held({ display_name: '', icon_url: '' }), { name: 'eu-west', displayName: '', icon: '' }, true);
    assert.equal(patch.display_name, 'eu-west');
    assert.equal(patch.icon, defaultProxyIcon);
  });

  it("recognises a proxy's own token by the proxy id in front of it, and nothing else", () => {
    const id = held().id;
    assert.equal(isTokenOf(`${id}:${'a'.repeat(64)}`, held()), true);
    assert.equal(isTokenOf(`3b8f1f0e-0000-4e5f-8a9b-0c1d2e3f4a5b:${'a'.repeat(64)}`, held()), false);
    assert.equal(isTokenOf(`x${id}:secret`, held()), false);
    assert.equal(isTokenOf(id, held()), false, 'the id alone is no token');
    assert.equal(isTokenOf(undefined, held()), false);
  });
});
