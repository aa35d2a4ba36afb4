import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { primaryAccessURL, proxyToken } from '../../../../src/controllers/coderworkspaceproxy/pod-inputs.ts';
import { SpecError } from '../../../../src/controllers/shared/spec-check.ts';
import { aWorkspaceProxy } from '../../../fixtures/coderworkspaceproxy.ts';

const cpURL = 'http://coder.coder.svc.cluster.local:80';
const isSpecError = (field: string) => (err: unknown) => err instanceof SpecError && err.field === field;

describe('what the proxy pods are given', () => {
  it('connect to spec.primaryAccessURL, else the control plane’s URL or the bootstrap Coder URL by mode', () => {
    const viaControlPlane = aWorkspaceProxy().withControlPlane().build();
    assert.equal(primaryAccessURL(viaControlPlane, 'controlPlane', cpURL), cpURL);
    assert.equal(primaryAccessURL(viaControlPlane, 'controlPlane', undefined), undefined, 'no URL yet: no Deployment');
    const bootstrap = aWorkspaceProxy().withBootstrap('https://coder.example.com', 'creds').build();
    assert.equal(primaryAccessURL(bootstrap, 'bootstrap', undefined), 'https://coder.example.com');
    const configured = aWorkspaceProxy().withControlPlane().withSpec({ primaryAccessURL: ' https://eu.example.com ' }).build();
    assert.equal(primaryAccessURL(configured, 'controlPlane', cpURL), 'https://eu.example.com');
  });

  it('needs spec.primaryAccessURL and spec.proxySessionTokenSecretRef from a proxy registered by hand', () => {
    assert.throws(() => primaryAccessURL(aWorkspaceProxy().build(), 'manual', undefined), isSpecError('spec.primaryAccessURL'));
    assert.throws(
      () => proxyToken(aWorkspaceProxy().build(), 'manual', { kind: 'absent' }, false),
      isSpecError('spec.proxySessionTokenSecretRef'),
    );
    const manual = aWorkspaceProxy().withSessionToken('https://coder.example.com', 'wsproxy-token', '').build();
    assert.deepEqual(proxyToken(manual, 'manual', { kind: 'absent' }, false), { name: 'wsproxy-token', key: 'token', held: true });
  });

  it('read the generated token Secret, which holds a token once registered or when the operator created it with one', () => {
    const proxy = aWorkspaceProxy('eu-west').withControlPlane().build();
    const secret = { metadata: { name: 'eu-west-proxy-token' } };
    assert.deepEqual(proxyToken(proxy, 'controlPlane', { kind: 'absent' }, false), {
      name: 'eu-west-proxy-token',
      key: 'token',
      held: false,
    });
    assert.equal(proxyToken(proxy, 'controlPlane', { kind: 'absent' }, true).held, true);
    assert.equal(proxyToken(proxy, 'controlPlane', { kind: 'owned', secret, token: 'id:secret' }, false).held, true);
    assert.equal(proxyToken(proxy, 'controlPlane', { kind: 'adopted', secret }, false).held, false, 'an empty Secret holds no token');
    const adopted = { kind: 'adopted' as const, secret, token: 'a-session-token' };
    assert.equal(
      proxyToken(proxy, 'controlPlane', adopted, false).held,
      false,
      "a user's Secret holds this proxy's token once registration says so",
    );
    assert.equal(proxyToken(proxy, 'controlPlane', adopted, true).held, true);
  });
});
