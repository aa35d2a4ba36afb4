// `coder-k8s --app=all` (deploy/deployment.yaml's mode) as one process: the controllers reconcile a
// CoderControlPlane (kwok pods, PostgreSQL, the operator token), and the aggregated API server of the
// same process serves that control plane's Coder through the real aggregator (kubectl → kube-apiserver
// → APIService → the operator's HTTPS port → the Coder API double), while the controller keeps
// reconciling the control plane.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient } from '../../generated/clients/index.ts';
import { registerApiService, waitApiServiceAvailable } from '../harness/aggregated-api.ts';
import { seedRunningWorkspaces } from '../harness/coder-api-double/workspace-world.ts';
import { createCoderDatabase } from '../harness/coder-database.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { freePort } from '../harness/ports.ts';
import { eventually } from '../harness/wait.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';

const ns = 'coder-all';

describe('--app=all: controllers and the aggregated API server in one process', { timeout: 300_000 }, () => {
  let env: OperatorEnvironment;

  before(async () => {
    const port = await freePort();
    env = await operatorEnvironment({
      app: 'all',
      operatorArgs: [`--secure-port=${port}`, '--bind-address=127.0.0.1'],
      beforeOperator: (cp) => registerApiService(cp, port),
    });
    await waitApiServiceAvailable(env.cp, env.operator);
  });

  after(async () => {
    await env?.stop();
  });

  it('serves the workspaces of the control plane it reconciles, through the aggregator, while it reconciles', async () => {
    const controlPlanes = coderControlPlaneClient(env.cp.adminConfig());
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    const database = await createCoderDatabase(env.postgres);
    await kubectlOk(env.admin, ['-n', ns, 'create', 'secret', 'generic', 'coder-db', `--from-literal=uri=${database}`]);
    await controlPlanes.create(aControlPlane('coder').inNamespace(ns).withDatabase('coder-db', 'uri').build());
    await eventually(
      'operator access and a ready replica',
      async () => {
        const cp = await controlPlanes.get(ns, 'coder');
        return cp.status?.operatorAccessReady === true && (cp.status.readyReplicas ?? 0) >= 1;
      },
      { timeoutMs: 90_000 },
    );
    // The double answers the token the controller minted for the control plane, as Coder would.
    const operatorToken = await kubectlOk(env.admin, ['-n', ns, 'get', 'secret', 'coder-operator-token', '-o', 'jsonpath={.data.token}']);
    env.coder.addToken(Buffer.from(operatorToken, 'base64').toString());
    seedRunningWorkspaces(env.coder.state.world, env.coder.state.users, {
      organization: 'acme',
      template: 'starter',
      owner: 'alice',
      workspaces: ['dev', 'data'],
    });

    const table = await kubectlOk(env.admin, ['get', 'coderworkspaces', '-n', ns]);
    assert.match(table, /NAME\s+TEMPLATE\s+RUNNING\s+BUILD\s+AGE/);
    assert.match(table, /acme\.alice\.data\s+starter\s+true/);
    assert.match(table, /acme\.alice\.dev\s+starter\s+true/);
    const all = await kubectlOk(env.admin, ['get', 'coderworkspaces', '-A', '-o', 'name']);
    assert.deepEqual(all.trim().split('\n').sort(), [
      'coderworkspace.aggregation.coder.com/acme.alice.data',
      'coderworkspace.aggregation.coder.com/acme.alice.dev',
    ]);

    // A change the controller must reconcile, with the aggregated API in use at the same time.
    await kubectlOk(env.admin, ['-n', ns, 'patch', 'codercontrolplane', 'coder', '--type=merge', '-p', '{"spec":{"replicas":2}}']);
    let served = 0;
    await eventually(
      'two ready replicas, with the aggregated API answering meanwhile',
      async () => {
        const names = await kubectlOk(env.admin, ['get', 'coderworkspaces', '-n', ns, '-o', 'name']);
        assert.match(names, /acme\.alice\.dev/);
        served++;
        return (await controlPlanes.get(ns, 'coder')).status?.readyReplicas === 2;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    assert.ok(served >= 1);
    await kubectlOk(env.admin, ['patch', 'coderworkspace', 'acme.alice.dev', '-n', ns, '--type=merge', '-p', '{"spec":{"running":false}}']);
    const dev = env.coder.state.world.workspaces.find((w) => !w.deleted && w.workspace.name === 'dev')!;
    assert.equal(dev.builds[0]?.transition, 'stop');
    const stopRequest = env.coder.requests.findLast((r) => r.path === `/api/v2/workspaces/${dev.workspace.id}/builds`);
    assert.equal(stopRequest?.token, Buffer.from(operatorToken, 'base64').toString(), "with the control plane's operator token");
    assert.equal(env.operator.process.hasExited, false);
  });
});
