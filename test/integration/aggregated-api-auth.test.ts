// Who may call the aggregated API server, and whom it trusts: requests straight to its port with the
// front proxy's certificate and X-Remote-* headers as kube-apiserver sends them, forged or rogue
// ones, cluster client certificates; the SubjectAccessReview skipped for system:masters
// and cached; bearer tokens reviewed once and cached; the trust ConfigMap watched, and the
// serving certificate renewed (under the same CA, or a new one on upgrade and rotation) and reloaded
// without a restart, with kube-apiserver's aggregator still reaching the server afterwards; TLS 1.2 at
// least.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { seedRunningWorkspaces } from '../harness/coder-api-double/workspace-world.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { apiServiceName, editFrontProxyTrust, startAggregatedApi, workspaceReaderRbac } from '../harness/aggregated-api.ts';
import { directRequest, negotiatedTls, servedCertificate } from '../harness/direct-request.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import { operatorNamespace, type RunningOperator } from '../harness/operator.ts';
import { createPki, type ClientCert, type Pki } from '../harness/pki.ts';
import { eventually } from '../harness/wait.ts';
import { issueServingCert, servingNames } from '../../src/aggregated/pki/serving-pki.ts';
import { selfSignedCert } from '../../src/runtime/self-signed-cert.ts';

const token = 'aggregated1-operatortokenvalue0000000';
const served = 'coder';
const listPath = `/apis/aggregation.coder.com/v1alpha1/namespaces/${served}/coderworkspaces`;

// Readers: the group readers-b and the user alice may list workspaces in `served`; nobody else may.
const readerRbac = workspaceReaderRbac(served, [
  '{apiGroup: rbac.authorization.k8s.io, kind: Group, name: readers-b}',
  '{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}',
]);
// olivia may get and watch one workspace; uma may get, patch and update workspaces but not create them;
// cora may also create them.
const grant = (user: string, rule: string) => `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: ${user}, namespace: ${served}}
rules: [${rule}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ${user}, namespace: ${served}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${user}}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ${user}}]
`;
const workspaceRule = (verbs: string, names = '') =>
  `{apiGroups: [aggregation.coder.com], resources: [coderworkspaces], verbs: [${verbs}]${names ? `, resourceNames: [${names}]` : ''}}`;
const rule = (resources: string, verbs: string) => `{apiGroups: [aggregation.coder.com], resources: [${resources}], verbs: [${verbs}]}`;
/** The least Role of each task in docs/how-to/aggregated-api.md "Who may do what", one user each. */
const docsRoles = {
  'task-read': rule('coderworkspaces', 'get, list, watch'),
  'task-patch': rule('coderworkspaces', 'get, patch'),
  'task-start-stop': rule('coderworkspaces/start, coderworkspaces/stop', 'create'),
  'task-log': rule('coderworkspaces/log', 'get'),
  'task-create': rule('coderworkspaces', 'create'),
  'task-apply': rule('coderworkspaces', 'patch, create'),
  'task-delete': rule('coderworkspaces', 'delete'),
  'task-delete-wait': rule('coderworkspaces', 'delete, get, list, watch'),
  'task-templates': rule('codertemplates, codertemplateversions', 'get, list'),
  'task-template-patch': rule('codertemplates', 'get, patch'),
  'task-promote': rule('codertemplates/promote', 'create'),
};
const userRbac = [
  grant('olivia', workspaceRule('get, watch', 'acme.alice.dev')),
  grant('uma', workspaceRule('get, patch, update')),
  grant('cora', workspaceRule('get, patch, create')),
  ...Object.entries(docsRoles).map(([user, r]) => grant(user, r)),
].join('---');

let cp: ControlPlane;
let coder: CoderApiDouble;
let operator: RunningOperator;
let port: number;
let admin: string;
let rogue: Pki;
let starterVersion: string;

/** A list request as the front proxy sends it: its certificate, and the identity in X-Remote-* lines. */
const asProxy = (headers: Record<string, string | string[]>, cert: ClientCert = cp.pki.frontProxyClient) =>
  directRequest(port, listPath, { headers, cert });
/** A CoderWorkspace of the seeded template, as a user would apply it. */
const workspaceManifest = (name: string) =>
  JSON.stringify({
    apiVersion: 'aggregation.coder.com/v1alpha1',
    kind: 'CoderWorkspace',
    metadata: { name, namespace: served },
    spec: { organization: 'acme', templateName: 'starter', running: true },
  });
const message = (answer: { body: string }) => (JSON.parse(answer.body) as { message: string }).message;

describe('aggregated API authentication, authorization and trust', { timeout: 300_000 }, () => {
  before(async () => {
    [cp, coder] = await Promise.all([startControlPlane(), startCoderApiDouble({ tokens: [token] })]);
    admin = cp.adminKubeconfigPath;
    await kubectlOk(admin, ['create', 'namespace', served]);
    await kubectlOk(admin, ['apply', '-f', '-'], `${readerRbac}---${userRbac}`);
    await kubectlOk(admin, ['create', 'serviceaccount', 'token-user', '-n', served]);
    ({
      version: { id: starterVersion },
    } = seedRunningWorkspaces(coder.state.world, coder.state.users, {
      organization: 'acme',
      template: 'starter',
      owner: 'alice',
      workspaces: ['dev', 'other', 'gone', 'gone2'],
    }));
    rogue = await createPki(await mkdtemp(join(cp.dir, 'rogue-pki-')));
    ({ operator, port } = await startAggregatedApi(cp, coder, token, served));
  });

  after(async () => {
    await operator?.process.stop();
    await Promise.all([cp?.stop(), coder?.stop()]);
  });

  it('takes the user from the first username line and a group from every group line, never splitting a line', async () => {
    assert.equal((await asProxy({ 'X-Remote-User': 'u1', 'X-Remote-Group': ['readers-a', 'readers-b'] })).status, 200);
    const oneLine = await asProxy({ 'X-Remote-User': 'u1', 'X-Remote-Group': 'readers-a, readers-b' });
    assert.equal(oneLine.status, 403, 'one line is one group, "readers-a, readers-b"');
    assert.equal((await asProxy({ 'X-Remote-User': ['alice', 'mallory'] })).status, 200);
    const second = await asProxy({ 'X-Remote-User': ['mallory', 'alice'] });
    assert.equal(second.status, 403);
    assert.match(message(second), /^User "mallory" cannot list resource "coderworkspaces"/);
    const since = new Date();
    await asProxy({
      'X-Remote-User': 'ivan',
      'X-Remote-Group': ['g1', 'g2, g3'],
      'X-Remote-Extra-Scopes': ['read', 'write'],
      'X-Remote-Extra-Acme.io%2fTeam': 'blue',
    });
    const [review] = await eventually('the review of ivan', async () => (await reviewsSince(since)).filter((r) => r.user === 'ivan'));
    assert.deepEqual(
      { groups: review!.groups, extra: review!.extra },
      { groups: ['g1', 'g2, g3', 'system:authenticated'], extra: { scopes: ['read', 'write'], 'acme.io/team': ['blue'] } },
    );
  });

  it('adds system:authenticated as kube-apiserver does: not to system:anonymous, nor to a user in system:unauthenticated', async () => {
    const since = new Date();
    // kube-apiserver forwards an anonymous request it allowed as this user and group.
    await asProxy({ 'X-Remote-User': 'system:anonymous', 'X-Remote-Group': 'system:unauthenticated' });
    await asProxy({ 'X-Remote-User': 'unauthenticated-guest', 'X-Remote-Group': 'system:unauthenticated' });
    await asProxy({ 'X-Remote-User': 'authenticated-guest', 'X-Remote-Group': 'guests' });
    const reviews = await eventually('the three reviews', async () => {
      const r = await reviewsSince(since);
      return r.some((x) => x.user === 'authenticated-guest') && r.some((x) => x.user === 'system:anonymous') ? r : undefined;
    });
    const groupsOf = (user: string) => reviews.filter((r) => r.user === user).map((r) => r.groups);
    assert.deepEqual(groupsOf('system:anonymous'), [['system:unauthenticated']]);
    assert.deepEqual(groupsOf('unauthenticated-guest'), [['system:unauthenticated']]);
    assert.deepEqual(groupsOf('authenticated-guest'), [['guests', 'system:authenticated']]);
  });

  it('refuses X-Remote-* headers from a rogue CA, a wrong CN, or no certificate, before any Coder call', async () => {
    const masters = { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' };
    const coderCalls = coder.requests.length;
    assert.equal((await asProxy(masters, rogue.frontProxyClient)).status, 401, 'a front-proxy-client certificate of another CA');
    const wrongName = await cp.pki.clientCert('not-the-proxy', [], 'front-proxy-ca');
    assert.equal((await asProxy(masters, wrongName)).status, 401, 'the front-proxy CA, but a CN not in requestheader-allowed-names');
    assert.equal((await directRequest(port, listPath, { headers: masters })).status, 401, 'no certificate');
    const noUser = await asProxy({ 'X-Remote-Group': 'system:masters' });
    assert.equal(noUser.status, 401, 'the proxy named nobody');
    assert.equal(coder.requests.length, coderCalls, 'no Coder call');
  });

  it('serves only the health paths anonymously, and answers 401 to an unknown bearer token', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const answer = await directRequest(port, path);
      assert.deepEqual([path, answer.status, answer.body], [path, 200, 'ok']);
    }
    for (const path of ['/healthz/ping', '/readyzX', '/healthz/../apis', '/version', '/openapi/v2', '/metrics', '/', '/apis']) {
      const answer = await directRequest(port, path);
      assert.deepEqual([path, answer.status, JSON.parse(answer.body).reason], [path, 401, 'Unauthorized']);
    }
    const bogus = await directRequest(port, listPath, { headers: { Authorization: 'Bearer not-a-token-anyone-issued' } });
    assert.equal(bogus.status, 401);
  });

  it('takes a cluster client certificate as CN = user and O = groups, over forged headers', async () => {
    const dave = await cp.pki.clientCert('dave', ['readers-b']);
    assert.equal((await directRequest(port, listPath, { cert: dave })).status, 200);
    const carol = await cp.pki.clientCert('carol', ['others']);
    const forged = await directRequest(port, listPath, {
      cert: carol,
      headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': ['readers-b', 'system:masters'] },
    });
    assert.equal(forged.status, 403);
    assert.match(message(forged), /^User "carol" cannot list resource "coderworkspaces" in API group "aggregation\.coder\.com"/);
  });

  it('names the user of a client certificate as Go does: the last CN, every O, values unescaped, a multi-valued RDN read', async () => {
    const lastCn = await clientCertWithSubject('/CN=mallory/CN=alice');
    assert.equal((await directRequest(port, listPath, { cert: lastCn })).status, 200, 'alice, the last CN');
    const multiValued = await clientCertWithSubject('/O=readers-b+CN=zed');
    assert.equal((await directRequest(port, listPath, { cert: multiValued })).status, 200, 'zed in readers-b');
    const comma = await directRequest(port, listPath, { cert: await clientCertWithSubject('/O=others/CN=bob, admin') });
    assert.equal(comma.status, 403);
    assert.match(message(comma), /^User "bob, admin" cannot list resource "coderworkspaces"/);
  });

  it('refuses Impersonate-* headers on a direct request with 403, and serves impersonation done by kube-apiserver', async () => {
    const [dave, adminCert] = [await cp.pki.clientCert('dave', ['readers-b']), await cp.pki.clientCert('admin', ['system:masters'])];
    const coderCalls = coder.requests.length;
    const asks: [ClientCert, Record<string, string>][] = [
      [dave, { 'Impersonate-User': 'erin' }],
      [dave, { 'Impersonate-User': 'dave', 'Impersonate-Group': 'system:masters' }],
      [dave, { 'Impersonate-Uid': '1234' }],
      [dave, { 'Impersonate-Extra-Scopes': 'admin' }],
      [adminCert, { 'Impersonate-User': 'erin' }],
    ];
    for (const [cert, headers] of asks) {
      const answer = await directRequest(port, listPath, { cert, headers });
      assert.deepEqual([answer.status, JSON.parse(answer.body).reason], [403, 'Forbidden'], JSON.stringify(headers));
      assert.match(message(answer), /^impersonation \(Impersonate-\S+\) is not served .*; send the request through kube-apiserver/);
    }
    assert.equal((await directRequest(port, listPath, { headers: { 'Impersonate-User': 'alice' } })).status, 401, 'authentication first');
    assert.equal(coder.requests.length, coderCalls, 'no Coder call');
    // kube-apiserver authorizes the impersonation and forwards the request as alice, without Impersonate-* headers.
    const asAlice = await kubectl(admin, ['get', 'coderworkspaces', '-n', served, '--as', 'alice', '-o', 'name']);
    assert.equal(asAlice.code, 0, asAlice.stderr);
    assert.match(asAlice.stdout, /coderworkspace\.aggregation\.coder\.com\/acme\.alice\.dev/);
  });

  it('asks one SubjectAccessReview per user and request, cached allowed or denied; system:masters needs none', async () => {
    const since = new Date();
    // Users no other test sent, so no review of theirs is cached yet.
    const [henry, erin] = [await cp.pki.clientCert('henry', ['readers-b']), await cp.pki.clientCert('erin', [])];
    for (let i = 0; i < 3; i++) {
      assert.equal((await directRequest(port, listPath, { cert: henry })).status, 200);
      assert.equal((await directRequest(port, listPath, { cert: erin })).status, 403);
    }
    await kubectlOk(admin, ['get', 'coderworkspaces', '-n', served, '-o', 'name']);
    const reviews = await eventually('the reviews in the audit log', async () => {
      const r = await reviewsSince(since);
      return r.some((s) => s.user === 'erin') ? r : undefined;
    });
    assert.deepEqual(
      reviews.filter((s) => s.user === 'henry'),
      [
        {
          user: 'henry',
          groups: ['readers-b', 'system:authenticated'],
          resourceAttributes: {
            namespace: served,
            verb: 'list',
            group: 'aggregation.coder.com',
            version: 'v1alpha1',
            resource: 'coderworkspaces',
          },
        },
      ],
    );
    assert.equal(reviews.filter((s) => s.user === 'erin').length, 1, 'the denial is cached too');
    assert.deepEqual(
      reviews.filter((s) => s.user === 'admin'),
      [],
      'kubectl as admin (system:masters) went through the aggregator without a review',
    );
  });

  it('reviews a bearer token once and keeps the answer 10 s, authenticated or not; another token gets its own review', async () => {
    const newToken = () => kubectlOk(admin, ['create', 'token', 'token-user', '-n', served]).then((t) => t.trim());
    const [first, second] = [await newToken(), await newToken()];
    const bearer = (t: string) => directRequest(port, listPath, { headers: { Authorization: `Bearer ${t}` } });
    const since = new Date();
    for (let i = 0; i < 2; i++) {
      assert.equal((await bearer(first)).status, 403, 'token-user is authenticated, and may not list');
      assert.equal((await bearer('never-issued-token-of-the-cache-test')).status, 401);
    }
    assert.equal((await bearer(second)).status, 403);
    // A review of a user nobody sent before: once it is in the audit log, so are the TokenReviews sent before it.
    await asProxy({ 'X-Remote-User': 'token-test-marker' });
    await eventually('the marker review', async () => (await reviewsSince(since)).some((r) => r.user === 'token-test-marker'));
    const tokenReviews = await operatorCreates('tokenreviews', since);
    assert.equal(tokenReviews.length, 3, 'one review for each of the three tokens');
  });

  it('follows kube-system/extension-apiserver-authentication as it changes, without waiting for a poll', async () => {
    const masters = { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' };
    assert.equal((await asProxy(masters, rogue.frontProxyClient)).status, 401);
    const rogueCa = await readFile(rogue.frontProxyCaFile, 'utf8');
    const restore = await editFrontProxyTrust(cp, (data) => (data['requestheader-client-ca-file'] += `\n${rogueCa}`));
    // A poll every 30 s would miss this most of the time; a watch sees the change within moments.
    await eventually(
      'the added front-proxy CA to be trusted',
      async () => (await asProxy(masters, rogue.frontProxyClient)).status === 200,
      {
        timeoutMs: 10_000,
      },
    );
    await restore();
    await eventually('the removed CA to be refused again', async () => (await asProxy(masters, rogue.frontProxyClient)).status === 401, {
      timeoutMs: 10_000,
    });
    assert.equal((await asProxy(masters)).status, 200, 'the real front proxy is still trusted');
  });

  it('takes groups from every line of every header of requestheader-group-headers once it names two', async () => {
    const restore = await editFrontProxyTrust(cp, (data) => (data['requestheader-group-headers'] = '["X-Remote-Group","X-Remote-Group2"]'));
    try {
      await eventually(
        'a group in X-Remote-Group2 to count',
        async () => (await asProxy({ 'X-Remote-User': 'u2', 'X-Remote-Group2': 'readers-b' })).status === 200,
        { timeoutMs: 10_000 },
      );
      const since = new Date();
      const answer = await asProxy({
        'X-Remote-User': 'judy',
        'X-Remote-Group': ['g1', 'g2'],
        'X-Remote-Group2': ['g3', 'g4'],
        'X-Remote-Extra-Scopes': 'read',
        'X-Remote-Extra-Acme.com%2Fproject': 'x',
        'X-Remote-Extra-Bad%zzEscape': 'y',
        'X-Remote-Extra-Case%41': 'z',
      });
      assert.equal(answer.status, 403);
      const [review] = await eventually('the review of judy', async () => (await reviewsSince(since)).filter((r) => r.user === 'judy'));
      assert.deepEqual(
        { groups: review!.groups, extra: review!.extra },
        {
          groups: ['g1', 'g2', 'g3', 'g4', 'system:authenticated'],
          extra: { scopes: ['read'], 'acme.com/project': ['x'], 'bad%zzescape': ['y'], caseA: ['z'] },
        },
      );
    } finally {
      await restore();
    }
    await eventually(
      'X-Remote-Group2 to be ignored again',
      async () => (await asProxy({ 'X-Remote-User': 'u3', 'X-Remote-Group2': 'readers-b' })).status === 403,
      { timeoutMs: 10_000 },
    );
  });

  it('renews an expiring serving certificate under the same CA, leaving the caBundle; serves renewed ones without a restart', async () => {
    const pid = operator.process.pid;
    const secret = await servingSecret();
    const ca = { cert: new X509Certificate(secret['ca.crt']!), key: createPrivateKey(secret['ca.key']!) };
    assert.equal(ca.cert.ca, true);
    assert.ok(new X509Certificate(secret['tls.crt']!).checkIssued(ca.cert), 'tls.crt is signed by the CA of ca.crt');
    assert.equal(await caBundle(), secret['ca.crt']);

    // Another replica (or a person) issued one under the CA: served at once, nothing else changes.
    const renewed = issueServingCert(ca, operatorNamespace, new Date());
    await writeServingSecret({ ...secret, 'tls.crt': renewed.cert, 'tls.key': renewed.key });
    await eventually('the renewed certificate to be served', async () => (await servedCertificate(port)) === fingerprint(renewed.cert));

    // One with less than a third of its year left: this server issues a new one under the same CA.
    const expiring = issueServingCert(ca, operatorNamespace, new Date(Date.now() - 250 * 86_400_000));
    await writeServingSecret({ ...secret, 'tls.crt': expiring.cert, 'tls.key': expiring.key });
    const fresh = await eventually('the operator to renew it', async () => {
      const now = await servingSecret();
      return now['tls.crt'] !== expiring.cert ? now : undefined;
    });
    const x509 = new X509Certificate(fresh['tls.crt']!);
    assert.ok(x509.checkIssued(ca.cert) && x509.verify(ca.cert.publicKey), 'signed by the same CA');
    assert.ok(new Date(x509.validTo).getTime() > Date.now() + 300 * 86_400_000, 'valid for a year');
    assert.deepEqual([fresh['ca.crt'], fresh['ca.key']], [secret['ca.crt'], secret['ca.key']], 'the CA is kept');
    await eventually('the fresh certificate to be served', async () => (await servedCertificate(port)) === fingerprint(fresh['tls.crt']!));
    assert.equal(await caBundle(), secret['ca.crt'], 'the caBundle did not change');
    await eventually(
      'kube-apiserver to reach the server with it',
      async () => (await kubectl(admin, ['get', 'coderworkspaces', '-n', served])).code === 0,
    );
    for (const name of servingNames(operatorNamespace)) assert.equal(x509.checkHost(name), name, `the certificate names ${name}`);
    assert.equal(operator.process.pid, pid);
    assert.equal(operator.process.hasExited, false, 'no restart');
  });

  it('upgrades the self-signed layout to a CA, and makes a new CA when ca.key is deleted, trusting the old while replicas switch', async () => {
    // The layout of releases before the CA: no ca.key, ca.crt is the self-signed serving certificate.
    const old = selfSignedCert(servingNames(operatorNamespace));
    await writeServingSecret({ 'ca.crt': old.cert, 'tls.crt': old.cert, 'tls.key': old.key });
    const upgraded = await eventually('a CA in the Secret', async () => {
      const now = await servingSecret();
      return now['ca.key'] ? now : undefined;
    });
    const [newCa, ...kept] = certificates(upgraded['ca.crt']!);
    assert.deepEqual(kept, [old.cert], 'ca.crt trusts the new CA and the old certificate');
    assert.ok(new X509Certificate(upgraded['tls.crt']!).checkIssued(new X509Certificate(newCa!)));
    await eventually('the caBundle to follow', async () => (await caBundle()) === upgraded['ca.crt']);
    await eventually('the new certificate to be served', async () => (await servedCertificate(port)) === fingerprint(upgraded['tls.crt']!));
    await eventually(
      'kube-apiserver to reach the server with it',
      async () => (await kubectl(admin, ['get', 'coderworkspaces', '-n', served])).code === 0,
    );

    // Rotating the CA: delete ca.key.
    await kubectlOk(admin, [
      'patch',
      'secret',
      '-n',
      operatorNamespace,
      'coder-k8s-apiserver-tls',
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/data/ca.key"}]',
    ]);
    const rotated = await eventually('another CA in the Secret', async () => {
      const now = await servingSecret();
      return now['ca.key'] && now['ca.key'] !== upgraded['ca.key'] ? now : undefined;
    });
    const [rotatedCa, ...trusted] = certificates(rotated['ca.crt']!);
    assert.deepEqual(trusted, [newCa, old.cert], 'the previous CA and certificate stay trusted while valid');
    assert.ok(new X509Certificate(rotated['tls.crt']!).checkIssued(new X509Certificate(rotatedCa!)));
    await eventually('the caBundle to follow', async () => (await caBundle()) === rotated['ca.crt']);
    await eventually(
      'kube-apiserver to reach the server with it',
      async () => (await kubectl(admin, ['get', 'coderworkspaces', '-n', served])).code === 0,
    );
  });

  it('accepts a client certificate only when it and its CA may authenticate clients (no extended key usage, or clientAuth)', async () => {
    const serverOnly = await cp.pki.clientCert('root', ['system:masters'], 'ca', 'serverAuth');
    const refused = await directRequest(port, listPath, { cert: serverOnly });
    assert.equal(refused.status, 401, 'a serverAuth-only certificate of the cluster CA is no client identity');
    const proxyServerOnly = await cp.pki.clientCert('front-proxy-client', [], 'front-proxy-ca', 'serverAuth');
    const forged = await asProxy({ 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' }, proxyServerOnly);
    assert.equal(forged.status, 401, 'nor a front proxy');
    const noUsage = await cp.pki.clientCert('nadia', ['readers-b'], 'ca', 'none');
    assert.equal(
      (await directRequest(port, listPath, { cert: noUsage })).status,
      200,
      'without extended key usages it may be used for anything',
    );
  });

  it('authenticates before reading the path: a malformed escape is 401 without a user and 400 with one, never a 500 or an error log line', async () => {
    const logged = logLength();
    const anonymous = await Promise.all(Array.from({ length: 200 }, () => directRequest(port, '/apis/%zz/%')));
    assert.deepEqual([...new Set(anonymous.map((a) => a.status))], [401]);
    const dave = await cp.pki.clientCert('dave', ['readers-b']);
    const malformed = await directRequest(port, `${listPath}/acme.alice.%E0%A4%A`, { cert: dave });
    assert.deepEqual(
      [malformed.status, message(malformed)],
      [400, 'the request path is not valid: a "%" must start a percent-encoded byte'],
    );
    assert.deepEqual(
      logSince(logged).filter((l) => l.level === 'error'),
      [],
    );
  });

  it('logs the authenticated user of a request, not an X-Remote-User header it carried', async () => {
    const logged = logLength();
    const carol = await cp.pki.clientCert('carol', ['others']);
    await directRequest(port, `${listPath}?logged=carol`, { cert: carol, headers: { 'X-Remote-User': 'alice' } });
    const line = await eventually('the request line', async () =>
      logSince(logged).find((l) => l.msg === 'aggregated API request' && l.code === 403),
    );
    assert.equal(line.user, 'carol');
  });

  it('refuses a body nested deeper than any object of its kind with 400, not 500', async () => {
    const adminCert = await cp.pki.clientCert('admin', ['system:masters']);
    const deep = '{"metadata":{"name":"acme.alice.deep"},"spec":' + '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000) + '}';
    const answer = await directRequest(port, listPath, {
      method: 'POST',
      cert: adminCert,
      headers: { 'Content-Type': 'application/json' },
      body: deep,
    });
    assert.deepEqual([answer.status, message(answer)], [400, 'the request body is nested more than 100 levels deep']);
  });

  it('scopes a watch of one workspace to it: an item GET is a get, /watch/ streams only that item, a name field selector is authorized for that name', async () => {
    const olivia = await cp.pki.clientCert('olivia', []);
    const viaKube = (path: string) => directRequest(Number(new URL(cp.server).port), path, { cert: olivia });
    const watchRoot = `/apis/aggregation.coder.com/v1alpha1/watch/namespaces/${served}/coderworkspaces`;
    const events = (body: string) =>
      body
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name?: string } } })
        .map((e) => `${e.type} ${e.object.metadata.name ?? ''}`.trim());

    const item = await viaKube(`${listPath}/acme.alice.dev?watch=true&sendInitialEvents=true&timeoutSeconds=1`);
    assert.equal(item.status, 200);
    assert.deepEqual(
      [JSON.parse(item.body).kind, JSON.parse(item.body).metadata.name],
      ['CoderWorkspace', 'acme.alice.dev'],
      'the object, not a stream',
    );

    const one = await viaKube(`${watchRoot}/acme.alice.dev?sendInitialEvents=true&timeoutSeconds=1`);
    assert.deepEqual([one.status, events(one.body)], [200, ['ADDED acme.alice.dev', 'BOOKMARK']]);
    const picked = await viaKube(
      `${watchRoot}/acme.alice.dev?sendInitialEvents=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dacme.alice.other`,
    );
    assert.deepEqual([picked.status, message(picked)], [400, "fieldSelector metadata.name doesn't match requested name"]);

    // kubectl get coderworkspace acme.alice.dev -w: a collection watch selecting the name.
    const selected = await viaKube(
      `${listPath}?watch=true&sendInitialEvents=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dacme.alice.dev`,
    );
    assert.deepEqual([selected.status, events(selected.body)], [200, ['ADDED acme.alice.dev', 'BOOKMARK']]);
    const others = await viaKube(
      `${listPath}?watch=true&sendInitialEvents=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dacme.alice.other`,
    );
    assert.equal(others.status, 403);
    assert.equal((await viaKube(`${listPath}?watch=true&timeoutSeconds=1`)).status, 403, 'the whole collection is not hers');
  });

  it('takes a name from a field selector as kube-apiserver does (untrimmed, sorted, none when an option fails to decode), answering as it does', async () => {
    const olivia = await cp.pki.clientCert('olivia', []);
    const kubePort = Number(new URL(cp.server).port);
    const watch = `${listPath}?watch=true&timeoutSeconds=1`;
    const dev = 'fieldSelector=metadata.name%3Dacme.alice.dev';
    const rows: [query: string, status: number][] = [
      [dev, 200],
      ['fieldSelector=metadata.name%3D%20acme.alice.dev', 403],
      ['fieldSelector=metadata.name%3Dacme.alice.other,metadata.name%3D%3Dacme.alice.dev', 200],
      [`limit=abc&${dev}`, 403],
      [`labelSelector=!!tier&${dev}`, 403],
    ];
    for (const [query, status] of rows) {
      const [direct, viaKube] = await Promise.all([
        directRequest(port, `${watch}&${query}`, { cert: olivia }),
        directRequest(kubePort, `${watch}&${query}`, { cert: olivia }),
      ]);
      assert.deepEqual([query, direct.status, viaKube.status], [query, status, status]);
    }
    const adminCert = await cp.pki.clientCert('admin', ['system:masters']);
    const undecodable = await directRequest(port, `${listPath}?limit=abc`, { cert: adminCert });
    assert.deepEqual([undecodable.status, message(undecodable)], [400, 'strconv.ParseInt: parsing "abc": invalid syntax']);
  });

  it('creates through apply only with create on the name, and never through an update (PUT of a missing object is a 404)', async () => {
    const writes = () => coder.requests.filter((r) => r.method !== 'GET').length;
    const [uma, cora] = [await cp.userKubeconfig('uma'), await cp.userKubeconfig('cora')];
    const before = writes();
    const applied = await kubectl(uma, ['apply', '--server-side', '-f', '-'], workspaceManifest('acme.alice.applied'));
    assert.notEqual(applied.code, 0);
    assert.match(
      applied.stderr,
      /User "uma" cannot create resource "coderworkspaces" in API group "aggregation\.coder\.com" in the namespace "coder"/,
    );
    const replaced = await kubectl(uma, ['replace', '-f', '-'], workspaceManifest('acme.alice.replaced'));
    assert.notEqual(replaced.code, 0);
    assert.match(replaced.stderr, /NotFound|not found/);
    assert.equal(writes(), before, 'nothing reached Coder');
    assert.equal(
      (await kubectl(uma, ['apply', '--server-side', '-f', '-'], workspaceManifest('acme.alice.dev'))).code,
      0,
      'an apply that updates needs patch only',
    );

    const created = await kubectl(cora, ['apply', '--server-side', '-f', '-'], workspaceManifest('acme.alice.applied'));
    assert.equal(created.code, 0, created.stderr);
    assert.ok(coder.state.world.workspaces.some((w) => !w.deleted && w.workspace.name === 'applied'));
  });

  it('lets each Role of the docs do its task with kubectl, and needs nothing more', async () => {
    const as = async (user: keyof typeof docsRoles, args: string[], input?: string) => {
      const answer = await kubectl(await cp.userKubeconfig(user), args, input);
      assert.equal(answer.code, 0, `${user}: kubectl ${args.join(' ')}: ${answer.stderr}`);
    };
    const item = `/apis/aggregation.coder.com/v1alpha1/namespaces/${served}`;
    await as('task-read', ['get', 'coderworkspaces', '-n', served]);
    await as('task-patch', [
      'patch',
      'coderworkspace',
      'acme.alice.other',
      '-n',
      served,
      '--type=merge',
      '-p',
      '{"spec":{"running":true}}',
    ]);
    await as('task-start-stop', ['create', '--raw', `${item}/coderworkspaces/acme.alice.other/start`, '-f', '-'], '{}');
    await as('task-log', ['get', '--raw', `${item}/coderworkspaces/acme.alice.other/log`]);
    await as('task-create', ['create', '-f', '-'], workspaceManifest('acme.alice.made'));
    await as('task-apply', ['apply', '--server-side', '-f', '-'], workspaceManifest('acme.alice.applied2'));
    await as('task-apply', ['apply', '--server-side', '-f', '-'], workspaceManifest('acme.alice.applied2'));
    await as('task-delete', ['delete', 'coderworkspace', 'acme.alice.gone', '-n', served, '--wait=false']);
    await as('task-delete-wait', ['delete', 'coderworkspace', 'acme.alice.gone2', '-n', served, '--timeout=60s']);
    await as('task-templates', ['get', 'codertemplates,codertemplateversions', '-n', served]);
    await as('task-template-patch', [
      'patch',
      'codertemplate',
      'acme.starter',
      '-n',
      served,
      '--type=merge',
      '-p',
      '{"spec":{"displayName":"Starter"}}',
    ]);
    await as(
      'task-promote',
      ['create', '--raw', `${item}/codertemplates/acme.starter/promote`, '-f', '-'],
      JSON.stringify({ spec: { versionID: starterVersion } }),
    );
  });

  it('refuses a TLS 1.1 client at the handshake and agrees on TLS 1.2 or 1.3, also after the trust and certificate changed', async () => {
    assert.match(await negotiatedTls(port, 'TLSv1.1'), /PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL/);
    assert.equal(await negotiatedTls(port, 'TLSv1.2'), 'TLSv1.2');
    assert.equal(await negotiatedTls(port, 'TLSv1.3'), 'TLSv1.3');
  });
  // Last: it leaves this address without failed reviews for a minute.
  it('makes at most 10 TokenReviews for unknown tokens from one address, then answers 429 without a review', async () => {
    const since = new Date();
    const answers = [];
    for (let i = 0; i < 50; i++)
      answers.push(await directRequest(port, listPath, { headers: { Authorization: `Bearer bogus-token-${i}-of-the-limit-test` } }));
    const statuses = answers.map((a) => a.status);
    assert.ok(
      statuses.slice(0, 8).every((s) => s === 401),
      statuses.join(' '),
    );
    assert.ok(
      statuses.slice(12).every((s) => s === 429),
      statuses.join(' '),
    );
    // The time to the next of one review per 6 s: less than 6 when the 50 requests took seconds on a busy machine.
    const retryAfter = Number(answers.at(-1)!.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 6, `Retry-After ${retryAfter}`);
    await asProxy({ 'X-Remote-User': 'token-limit-marker' });
    await eventually('the marker review', async () => (await reviewsSince(since)).some((r) => r.user === 'token-limit-marker'));
    const reviews = (await operatorCreates('tokenreviews', since)).length;
    assert.ok(reviews <= 10, `${reviews} TokenReviews for 50 unknown tokens`);
  });
});

const run = promisify(execFile);
let subjects = 0;

/** A client certificate of the cluster CA with exactly `subject` (openssl's syntax: `+` joins one multi-valued RDN). */
async function clientCertWithSubject(subject: string): Promise<ClientCert> {
  const { dir } = cp.pki;
  const name = `subject-${subjects++}`;
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', ['req', ...ec, '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`], { cwd: dir });
  await writeFile(join(dir, `${name}.ext`), 'extendedKeyUsage=clientAuth\n');
  const sign = ['-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', `${name}.ext`];
  await run('openssl', ['x509', '-req', '-in', `${name}.csr`, ...sign, '-out', `${name}.crt`], { cwd: dir });
  return { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
}

interface LogLine {
  level: string;
  msg: string;
  code?: number;
  user?: string;
}
const logLength = () => readFileSync(operator.logFile, 'utf8').length;
/** The operator's log lines written after `offset`. */
const logSince = (offset: number): LogLine[] =>
  readFileSync(operator.logFile, 'utf8')
    .slice(offset)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

const decoded = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
const certificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];

/** The serving certificate Secret's data, as PEM by key. */
async function servingSecret(): Promise<Record<string, string>> {
  const secret = JSON.parse(await kubectlOk(admin, ['get', 'secret', '-n', operatorNamespace, 'coder-k8s-apiserver-tls', '-o', 'json']));
  return Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, decoded(v)]));
}

/** Replaces the serving certificate Secret's data, as another replica or a person would. */
async function writeServingSecret(pem: Record<string, string>): Promise<void> {
  const secret = JSON.parse(await kubectlOk(admin, ['get', 'secret', '-n', operatorNamespace, 'coder-k8s-apiserver-tls', '-o', 'json']));
  secret.data = Object.fromEntries(Object.entries(pem).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  await kubectlOk(admin, ['replace', '-f', '-'], JSON.stringify(secret));
}

/** The APIService's caBundle as PEM. */
async function caBundle(): Promise<string> {
  return decoded(await kubectlOk(admin, ['get', 'apiservice', apiServiceName, '-o', 'jsonpath={.spec.caBundle}']));
}

interface ReviewSpec {
  user: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  resourceAttributes?: Record<string, string>;
  nonResourceAttributes?: Record<string, string>;
}

/** What the operator created of `resource` (subjectaccessreviews, tokenreviews) since `since`, from the audit log. */
async function operatorCreates(resource: string, since: Date) {
  const events = await cp.auditEvents({ username: 'system:serviceaccount:coder-system:coder-k8s', verbs: ['create'], since });
  return events.filter((e) => e.objectRef?.resource === resource);
}

/** The SubjectAccessReviews the operator asked for since `since`: their specs. */
async function reviewsSince(since: Date): Promise<ReviewSpec[]> {
  return (await operatorCreates('subjectaccessreviews', since)).map((e) => (e.requestObject as { spec: ReviewSpec }).spec);
}
