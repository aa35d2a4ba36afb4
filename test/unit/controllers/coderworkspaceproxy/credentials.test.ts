import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { coderAccess } from '../../../../src/controllers/coderworkspaceproxy/coder-access.ts';
import type { ProxyContext } from '../../../../src/controllers/coderworkspaceproxy/context.ts';
import { checkCredentials } from '../../../../src/controllers/coderworkspaceproxy/credentials.ts';
import { SpecError } from '../../../../src/controllers/shared/spec-check.ts';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { tokenSecretState } from '../../../../src/controllers/coderworkspaceproxy/token-secret.ts';
import { aWorkspaceProxy } from '../../../fixtures/coderworkspaceproxy.ts';

const marked = (name: string, destinations: string, data: Record<string, string> = { token: 't' }): V1Secret => ({
  metadata: {
    name,
    namespace: 'coder',
    labels: { 'coder.com/credential': 'true' },
    annotations: { 'coder.com/credential-destinations': destinations },
  },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});
const unmarked = (name: string): V1Secret => ({
  metadata: { name, namespace: 'coder' },
  data: { token: Buffer.from('t').toString('base64') },
});
const lookup =
  (...secrets: V1Secret[]) =>
  (name: string) =>
    secrets.find((s) => s.metadata!.name === name);
const check = (proxy = aWorkspaceProxy('eu-west').inNamespace('coder').build(), ...secrets: V1Secret[]) => {
  const result = checkCredentials(
    proxy,
    tokenSecretState(proxy, lookup(...secrets)(`${proxy.metadata.name}-proxy-token`)),
    lookup(...secrets),
  );
  return { ...result, line: `${result.condition.status} ${result.condition.reason}` };
};

describe('CredentialSecretReady of a workspace proxy', () => {
  const manual = aWorkspaceProxy('eu-west').inNamespace('coder').withSessionToken('https://coder.example.com', 'proxy-token').build();
  const rows: { what: string; secrets: V1Secret[]; line: string }[] = [
    {
      what: 'a Secret marked for this proxy',
      secrets: [marked('proxy-token', 'coderworkspaceproxy/eu-west')],
      line: 'True CredentialAccepted',
    },
    {
      what: 'a Secret marked for every proxy',
      secrets: [marked('proxy-token', 'coderprovisioner/x, coderworkspaceproxy/*')],
      line: 'True CredentialAccepted',
    },
    { what: 'an unmarked Secret', secrets: [unmarked('proxy-token')], line: 'False NotMarkedAsCredential' },
    {
      what: 'a Secret for another proxy',
      secrets: [marked('proxy-token', 'coderworkspaceproxy/us-east')],
      line: 'False DestinationNotListed',
    },
    {
      what: 'a Secret for this name of another kind',
      secrets: [marked('proxy-token', 'coderprovisioner/eu-west')],
      line: 'False DestinationNotListed',
    },
    { what: 'no Secret', secrets: [], line: 'False SecretNotFound' },
    {
      what: 'a Secret without the key',
      secrets: [marked('proxy-token', 'coderworkspaceproxy/eu-west', { other: 'x' })],
      line: 'False KeyNotFound',
    },
  ];
  for (const row of rows) {
    it(`reports ${row.line} for ${row.what}`, () => {
      const result = check(manual, ...row.secrets);
      assert.equal(result.line, row.line);
      if (row.line.startsWith('False')) assert.ok(result.condition.message.includes('"coder/proxy-token"'), result.condition.message);
    });
  }

  it('hands over the bootstrap token only from a consenting Secret', () => {
    const proxy = aWorkspaceProxy('eu-west').inNamespace('coder').withBootstrap('http://coder', 'admin').build();
    assert.equal(check(proxy, marked('admin', 'coderworkspaceproxy/eu-west', { token: ' s3cret\n' })).bootstrapToken, 's3cret');
    const refused = check(proxy, unmarked('admin'));
    assert.equal(refused.line, 'False NotMarkedAsCredential');
    assert.equal(refused.bootstrapToken, undefined);
    assert.ok(!refused.condition.message.includes('s3cret'));
  });

  it('blames spec.bootstrap.credentialsSecretRef, naming the Secret and key but not the value, for a token of two lines', () => {
    const proxy = aWorkspaceProxy('eu-west').inNamespace('coder').withBootstrap('http://coder', 'admin').build();
    const lines = ['AbCdEfGhIj-first-line-of-it', 'second-line-of-it'];
    const { bootstrapToken } = check(proxy, marked('admin', 'coderworkspaceproxy/eu-west', { token: ` ${lines.join('\n')}\n` }));
    assert.equal(bootstrapToken, lines.join('\n'), 'only the ends are trimmed');
    const ctx = { logger: createLogger({ level: 'silent' }) } as unknown as ProxyContext;
    assert.throws(
      () => coderAccess(ctx, proxy, bootstrapToken),
      (err: unknown) => {
        assert.ok(err instanceof SpecError, String(err));
        assert.equal(err.field, 'spec.bootstrap.credentialsSecretRef');
        assert.match(
          err.message,
          /^spec\.bootstrap\.credentialsSecretRef: Secret "coder\/admin" \(key "token"\) holds no usable token: .*line break/,
        );
        for (const line of lines) assert.ok(!err.message.includes(line), 'the message quotes the token');
        return true;
      },
    );
  });

  it('checks every extraEnv secretKeyRef; a missing optional one is fine, an unmarked optional one is not', () => {
    const env = (name: string, optional?: boolean) => ({
      name: name.toUpperCase(),
      valueFrom: { secretKeyRef: { name, key: 'token', ...(optional ? { optional } : {}) } },
    });
    const base = aWorkspaceProxy('eu-west').inNamespace('coder').withControlPlane();
    assert.equal(check(base.build()).line, 'True CredentialAccepted');
    assert.equal(
      check(aWorkspaceProxy('eu-west').inNamespace('coder').withControlPlane().withExtraEnv(env('gone', true)).build()).line,
      'True CredentialAccepted',
    );
    const two = aWorkspaceProxy('eu-west').inNamespace('coder').withControlPlane().withExtraEnv(env('plain', true), env('other')).build();
    const result = check(two, unmarked('plain'), marked('other', 'coderworkspaceproxy/eu-west'));
    assert.equal(result.line, 'False NotMarkedAsCredential');
    assert.match(result.condition.message, /"coder\/plain"/);
  });

  it('names every refused Secret, so no pod receives one, and says so in the message', () => {
    const env = (name: string) => ({ name: name.toUpperCase(), valueFrom: { secretKeyRef: { name, key: 'token' } } });
    const proxy = aWorkspaceProxy('eu-west')
      .inNamespace('coder')
      .withSessionToken('https://coder.example.com', 'proxy-token')
      .withExtraEnv(env('fine'), env('plain'))
      .build();
    const refused = check(proxy, unmarked('proxy-token'), marked('fine', 'coderworkspaceproxy/eu-west'), unmarked('plain'));
    assert.deepEqual([...refused.refused].sort(), ['plain', 'proxy-token']);
    assert.match(refused.condition.message, /Nothing is read from or written to it, and no pod receives it\./);
    const generated = aWorkspaceProxy('eu-west').inNamespace('coder').withControlPlane().build();
    assert.deepEqual([...check(generated, unmarked('eu-west-proxy-token')).refused], ['eu-west-proxy-token']);
    assert.deepEqual([...check(manual, marked('proxy-token', 'coderworkspaceproxy/eu-west')).refused], []);
  });

  it('refuses an existing generated token Secret the operator did not create unless it is marked for this proxy', () => {
    const proxy = aWorkspaceProxy('eu-west').inNamespace('coder').withControlPlane().build();
    assert.equal(check(proxy, unmarked('eu-west-proxy-token')).line, 'False NotMarkedAsCredential');
    assert.equal(check(proxy, marked('eu-west-proxy-token', 'coderworkspaceproxy/eu-west', {})).line, 'True CredentialAccepted');
    const owned: V1Secret = {
      metadata: {
        name: 'eu-west-proxy-token',
        namespace: 'coder',
        ownerReferences: [
          { apiVersion: 'coder.com/v1alpha1', kind: 'CoderWorkspaceProxy', name: 'eu-west', uid: 'uid-eu-west', controller: true },
        ],
      },
    };
    assert.equal(check(proxy, owned).line, 'True CredentialAccepted');
  });
});
