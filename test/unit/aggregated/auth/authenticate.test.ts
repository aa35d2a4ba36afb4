import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Authenticator, withAuthenticatedGroup, type UserInfo } from '../../../../src/aggregated/auth/authenticate.ts';
import type { FrontProxyTrust } from '../../../../src/aggregated/auth/front-proxy-trust.ts';
import type { KubeHttp } from '../../../../src/runtime/kube-http.ts';
import { createCA, createLeaf } from '../../../harness/pki.ts';

const dir = mkdtempSync(join(tmpdir(), 'authenticate-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

await createCA(dir, 'ca');
await createCA(dir, 'fp-ca');

let minted = 0;
/** A client certificate with exactly `subject` (openssl -subj syntax: `+` joins one multi-valued RDN), signed by `ca`. */
async function certWith(subject: string, ca = 'ca'): Promise<X509Certificate> {
  const name = `leaf-${minted++}`;
  await createLeaf(dir, name, ca, subject, 'extendedKeyUsage=clientAuth\n');
  return new X509Certificate(readFileSync(join(dir, `${name}.crt`)));
}

const trust: FrontProxyTrust = {
  requestHeaderCAs: [new X509Certificate(readFileSync(join(dir, 'fp-ca.crt')))],
  allowedNames: ['front-proxy-client'],
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
  clientCAs: [new X509Certificate(readFileSync(join(dir, 'ca.crt')))],
  caPem: '',
};

/** A request as the TLS server hands it over: its peer certificate and header lines. */
function request(cert: X509Certificate | undefined, headers: Record<string, string | string[]> = {}): IncomingMessage {
  const distinct = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v].flat()]));
  const joined = Object.fromEntries(Object.entries(distinct).map(([k, v]) => [k, v.join(', ')]));
  const socket = { remoteAddress: '10.0.0.1', getPeerCertificate: () => (cert ? { raw: cert.raw } : {}) };
  return { headers: joined, headersDistinct: distinct, socket } as unknown as IncomingMessage;
}

/** A TokenReview answer of kube-apiserver for every token. */
const reviewing = (user: { username: string; groups?: string[] }) =>
  ({ json: async () => ({ status: { authenticated: true, user } }) }) as unknown as KubeHttp;

const authenticator = (http = {} as KubeHttp) => new Authenticator(http, () => trust);
const who = (user: UserInfo | undefined) => user && { username: user.username, groups: user.groups };

describe('who sent a request (authenticate.ts)', () => {
  it('adds system:authenticated as kube-apiserver does: never to system:anonymous or a user already in system:unauthenticated', () => {
    const rows: [username: string, groups: string[], expected: string[]][] = [
      ['alice', ['devs'], ['devs', 'system:authenticated']],
      ['alice', ['system:authenticated', 'devs'], ['system:authenticated', 'devs']],
      ['system:anonymous', ['system:unauthenticated'], ['system:unauthenticated']],
      ['system:anonymous', [], []],
      ['guest', ['system:unauthenticated'], ['system:unauthenticated']],
      ['alice', ['devs', 'devs'], ['devs', 'devs', 'system:authenticated']],
    ];
    for (const [username, groups, expected] of rows)
      assert.deepEqual(withAuthenticatedGroup({ username, groups, extra: {} }).groups, expected, `${username} in ${groups.join(',')}`);
  });

  it('takes the anonymous user the front proxy forwards as it is, without system:authenticated', async () => {
    const proxy = await certWith('/CN=front-proxy-client', 'fp-ca');
    const anonymous = await authenticator().authenticate(
      request(proxy, { 'X-Remote-User': 'system:anonymous', 'X-Remote-Group': 'system:unauthenticated' }),
    );
    assert.deepEqual(who(anonymous), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    const named = await authenticator().authenticate(request(proxy, { 'X-Remote-User': 'ivan', 'X-Remote-Group': ['g1', 'g1'] }));
    assert.deepEqual(who(named), { username: 'ivan', groups: ['g1', 'g1', 'system:authenticated'] }, 'groups as sent, then the one added');
  });

  it('adds system:authenticated to a reviewed token user that lacks it, and not to system:anonymous', async () => {
    const bearer = request(undefined, { Authorization: 'Bearer some-token' });
    assert.deepEqual(who(await authenticator(reviewing({ username: 'tess', groups: ['ops'] })).authenticate(bearer)), {
      username: 'tess',
      groups: ['ops', 'system:authenticated'],
    });
    assert.deepEqual(who(await authenticator(reviewing({ username: 'system:anonymous' })).authenticate(bearer)), {
      username: 'system:anonymous',
      groups: [],
    });
  });

  it('reads a client certificate as Go does: the last CN is the user, every O a group, values unescaped, multi-valued RDNs included', async () => {
    const rows: [subject: string, expected: { username: string; groups: string[] } | undefined][] = [
      ['/O=readers/CN=bob, admin', { username: 'bob, admin', groups: ['readers', 'system:authenticated'] }],
      ['/CN=first/O=g1/CN=second', { username: 'second', groups: ['g1', 'system:authenticated'] }],
      ['/CN=alice+O=system:masters/O=devs', { username: 'alice', groups: ['system:masters', 'devs', 'system:authenticated'] }],
      ['/CN=eve="x"\\/y;z', { username: 'eve="x"/y;z', groups: ['system:authenticated'] }],
      ['/CN=system:anonymous/O=system:unauthenticated', { username: 'system:anonymous', groups: ['system:unauthenticated'] }],
      ['/O=no-name', undefined],
    ];
    for (const [subject, expected] of rows)
      assert.deepEqual(who(await authenticator().authenticate(request(await certWith(subject)))), expected, subject);
  });

  it('checks the allowed front-proxy names against the last CN of the proxy certificate', async () => {
    const headers = { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' };
    const lastWins = await certWith('/CN=front-proxy-client/CN=not-the-proxy', 'fp-ca');
    assert.equal(await authenticator().authenticate(request(lastWins, headers)), undefined);
    const proxy = await certWith('/CN=someone/CN=front-proxy-client', 'fp-ca');
    assert.equal((await authenticator().authenticate(request(proxy, headers)))?.username, 'admin');
  });
});
