// Secure metrics against a real API server: HTTPS, the caller authenticated by TokenReview and
// authorised by SubjectAccessReview, the operator under its generated role only.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeHttp } from '../../src/runtime/kube-http.ts';
import { MetricsAuthorizer } from '../../src/runtime/metrics-auth.ts';
import { metricsServingCert } from '../../src/runtime/metrics-tls.ts';
import { createMetrics, startMetricsServer } from '../../src/runtime/metrics.ts';
import type { HttpEndpoint } from '../../src/runtime/http-endpoint.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { scrapeMetrics } from '../harness/scrape.ts';

const namespace = 'metrics-auth';

describe('secure metrics on a real API server', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let server: HttpEndpoint;
  const tls = metricsServingCert(undefined);

  before(async () => {
    cp = await startControlPlane();
    core = cp.adminConfig().makeApiClient(CoreV1Api);
    const admin = cp.adminKubeconfigPath;
    await kubectlOk(admin, ['create', 'namespace', 'coder-system']);
    await kubectlOk(admin, ['create', 'namespace', namespace]);
    // The generated role alone (not the auth-delegator binding of the aggregated API server).
    await kubectlOk(admin, [
      'apply',
      '-f',
      'config/rbac/service_account.yaml',
      '-f',
      'config/rbac/role.yaml',
      '-f',
      'config/rbac/cluster_role_binding.yaml',
      '-f',
      'deploy/metrics-reader-role.yaml',
    ]);
    await kubectlOk(admin, [
      'create',
      'clusterrolebinding',
      'scraper-metrics',
      '--clusterrole=coder-k8s-metrics-reader',
      `--serviceaccount=${namespace}:scraper`,
    ]);
    const operator = new KubeConfig();
    operator.loadFromFile(await cp.operatorKubeconfig('coder-system', 'coder-k8s'));
    const metrics = createMetrics();
    metrics.reconcileTotal.inc({ controller: 'codercontrolplane', result: 'success' });
    server = (await startMetricsServer('127.0.0.1:0', metrics.registry, {
      tls,
      authorizer: new MetricsAuthorizer(new KubeHttp(operator)),
    }))!;
  });
  after(async () => {
    await server?.close();
    await cp?.stop();
  });

  async function tokenOf(serviceAccount: string): Promise<string> {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: serviceAccount } } });
    const answer = await core.createNamespacedServiceAccountToken({ name: serviceAccount, namespace, body: { spec: { audiences: [] } } });
    return answer.status!.token!;
  }

  /** GET /metrics, trusting the served certificate as its own CA (it names 127.0.0.1). */
  const scrape = (token?: string) => scrapeMetrics(server.port, { ca: tls.cert, ...(token ? { token } : {}) });

  it('answers 401 to a caller without a token, or with a token the API server does not know', async () => {
    assert.equal((await scrape()).status, 401);
    assert.equal((await scrape('not-a-real-token')).status, 401);
  });

  it('answers 403 to an authenticated caller that may not get /metrics', async () => {
    const answer = await scrape(await tokenOf('stranger'));
    assert.equal(answer.status, 403);
    assert.match(answer.body, /system:serviceaccount:metrics-auth:stranger may not get \/metrics/);
  });

  it('serves the metrics to a caller bound to coder-k8s-metrics-reader', async () => {
    const answer = await scrape(await tokenOf('scraper'));
    assert.equal(answer.status, 200, answer.body);
    assert.match(answer.body, /controller_runtime_reconcile_total\{controller="codercontrolplane",result="success"\} 1/);
  });

  it('is not served over plain HTTP', async () => {
    const plain = await fetch(`http://127.0.0.1:${server.port}/metrics`).then(
      (res) => res.status,
      () => 'refused',
    );
    assert.notEqual(plain, 200);
  });
});
