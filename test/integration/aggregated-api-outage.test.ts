// The aggregated API server while it cannot reach kube-apiserver (a proxy in its kubeconfig, cut for
// the outage): a bearer token is a 401 and is reviewed again at once afterwards; a request whose
// SubjectAccessReview cannot be sent is a 503 before any Coder call, while a cached answer serves on;
// afterwards the server's own watches resume.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { editFrontProxyTrust, startAggregatedApi, workspaceReaderRbac } from '../harness/aggregated-api.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { directRequest } from '../harness/direct-request.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import type { RunningOperator } from '../harness/operator.ts';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.ts';
import { eventually } from '../harness/wait.ts';

const token = 'aggregated1-operatortokenvalue0000000';
const served = 'coder';
const listPath = `/apis/aggregation.coder.com/v1alpha1/namespaces/${served}/coderworkspaces`;
const discoveryPath = '/apis/aggregation.coder.com/v1alpha1';

// The group readers and the ServiceAccount reader may list workspaces in `served`.
const readerRbac = workspaceReaderRbac(served, [
  '{apiGroup: rbac.authorization.k8s.io, kind: Group, name: readers}',
  `{kind: ServiceAccount, name: reader, namespace: ${served}}`,
]);

let cp: ControlPlane;
let coder: CoderApiDouble;
let proxy: TcpProxy;
let operator: RunningOperator;
let port: number;

/** A request as the front proxy sends it, for `user`. */
const asProxy = (path: string, user: string, headers: Record<string, string> = {}) =>
  directRequest(port, path, { cert: cp.pki.frontProxyClient, headers: { 'X-Remote-User': user, ...headers } });
const bearer = (t: string) => directRequest(port, listPath, { headers: { Authorization: `Bearer ${t}` } });

/** Runs `during` while the operator cannot reach kube-apiserver. */
async function outage<T>(during: () => Promise<T>): Promise<T> {
  proxy.cut();
  try {
    return await during();
  } finally {
    proxy.restore();
  }
}

describe('aggregated API while kube-apiserver cannot be reached', { timeout: 300_000 }, () => {
  before(async () => {
    [cp, coder] = await Promise.all([startControlPlane(), startCoderApiDouble({ tokens: [token] })]);
    await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', served]);
    await kubectlOk(cp.adminKubeconfigPath, ['apply', '-f', '-'], readerRbac);
    await kubectlOk(cp.adminKubeconfigPath, ['create', 'serviceaccount', 'reader', '-n', served]);
    proxy = await startTcpProxy(Number(new URL(cp.server).port));
    ({ operator, port } = await startAggregatedApi(cp, coder, token, served, { kubeServer: `https://127.0.0.1:${proxy.port}` }));
  });

  after(async () => {
    await operator?.process.stop();
    await proxy?.stop();
    await Promise.all([cp?.stop(), coder?.stop()]);
  });

  it('answers 401 to a bearer token while TokenReviews fail, and does not keep that answer', async () => {
    const readerToken = (await kubectlOk(cp.adminKubeconfigPath, ['create', 'token', 'reader', '-n', served])).trim();
    const during = await outage(() => bearer(readerToken));
    assert.deepEqual([during.status, JSON.parse(during.body).reason], [401, 'Unauthorized']);
    assert.equal((await bearer(readerToken)).status, 200, 'reviewed again as soon as kube-apiserver answers');
  });

  it('answers 503 without calling Coder when a SubjectAccessReview fails; an answer cached before serves on', async () => {
    assert.equal((await asProxy(discoveryPath, 'cached-user')).status, 200);
    const coderCalls = coder.requests.length;
    const [cold, cached] = await outage(async () => [
      await asProxy(listPath, 'cold-user', { 'X-Remote-Group': 'readers' }),
      await asProxy(discoveryPath, 'cached-user'),
    ]);
    const status = JSON.parse(cold.body);
    assert.deepEqual([cold.status, status.kind, status.reason], [503, 'Status', 'ServiceUnavailable']);
    assert.match(status.message, /^authorization could not be checked/);
    assert.equal(coder.requests.length, coderCalls, 'no Coder call');
    assert.equal(cached.status, 200, 'the cached answer, asked for just before the outage');
    assert.equal((await asProxy(listPath, 'cold-user', { 'X-Remote-Group': 'readers' })).status, 200, 'the failure was not cached');
  });

  it('resumes its watches after the outage: a changed front-proxy trust is followed, and kubectl reaches it', async () => {
    const restore = await editFrontProxyTrust(cp, (data) => (data['requestheader-group-headers'] = '["X-Remote-Group","X-Remote-Group2"]'));
    try {
      await eventually('the changed group headers to be followed', async () => {
        return (await asProxy(listPath, 'another-reader', { 'X-Remote-Group2': 'readers' })).status === 200;
      });
    } finally {
      await restore();
    }
    await eventually('kubectl to list through the aggregator', async () => {
      return (await kubectl(cp.adminKubeconfigPath, ['get', 'coderworkspaces', '-n', served])).code === 0;
    });
  });
});
