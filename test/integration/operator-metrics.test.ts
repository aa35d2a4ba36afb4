// The operator process serves its metrics as a deployed operator does by default: HTTPS with a
// certificate it signed itself, to callers that may get /metrics, under the generated RBAC only.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { installOperatorRbac, startOperator, type RunningOperator } from '../harness/operator.ts';
import { freePort } from '../harness/ports.ts';
import { scrapeMetrics } from '../harness/scrape.ts';
import { eventually } from '../harness/wait.ts';

const namespace = 'operator-metrics';

const scrape = (port: number, token?: string) => scrapeMetrics(port, token ? { token } : {});

describe('coder-k8s metrics endpoint by default', () => {
  let cp: ControlPlane;
  let operator: RunningOperator | undefined;
  let port: number;

  before(async () => {
    cp = await startControlPlane();
    const kubeconfig = await installOperatorRbac(cp);
    await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', namespace]);
    await kubectlOk(cp.adminKubeconfigPath, ['apply', '-f', 'deploy/metrics-reader-role.yaml']);
    await kubectlOk(cp.adminKubeconfigPath, [
      'create',
      'clusterrolebinding',
      'prometheus-coder-k8s-metrics',
      '--clusterrole=coder-k8s-metrics-reader',
      `--serviceaccount=${namespace}:prometheus`,
    ]);
    port = await freePort();
    // The last of a repeated flag wins: these undo the harness's plain loopback metrics.
    operator = await startOperator(cp, kubeconfig, { args: [`--metrics-bind-address=127.0.0.1:${port}`, '--metrics-secure=true'] });
  });
  after(async () => {
    await operator?.process.stop();
    await cp?.stop();
  });

  it('answers 401 without a token and 200 with the metrics to a metrics reader', async () => {
    assert.equal((await scrape(port)).status, 401);
    const core = cp.adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'prometheus' } } });
    const token = (await core.createNamespacedServiceAccountToken({ name: 'prometheus', namespace, body: { spec: { audiences: [] } } }))
      .status!.token!;
    const answer = await scrape(port, token);
    assert.equal(answer.status, 200, answer.body);
    assert.match(answer.body, /^# TYPE controller_runtime_reconcile_total counter$/m);
    await eventually('the operator to report itself leader in its metrics', async () =>
      /^leader_election_master_status\{name="coder-k8s-controller.coder.com"\} 1$/m.test((await scrape(port, token)).body),
    );
  });
});
