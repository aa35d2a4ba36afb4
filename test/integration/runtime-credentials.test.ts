// The runtime's credentials against a real API server: a token file is read again, so a rotated
// projected ServiceAccount token (or a kubeconfig tokenFile replaced by another identity's) is used.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { KubeHttp } from '../../src/runtime/kube-http.ts';
import { kubeconfigTokenFile } from '../../src/runtime/token-file.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { eventually } from '../harness/wait.ts';

const namespace = 'token-rotation';

describe('token file rotation on a real API server', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;

  before(async () => {
    cp = await startControlPlane();
    core = cp.adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
  });
  after(() => cp?.stop());

  async function tokenOf(serviceAccount: string): Promise<string> {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: serviceAccount } } });
    const request = await core.createNamespacedServiceAccountToken({
      name: serviceAccount,
      namespace,
      body: { spec: { audiences: [], expirationSeconds: 3_600 } },
    });
    return request.status!.token!;
  }

  async function whoAmI(http: KubeHttp): Promise<string | undefined> {
    const review = await http.json<{ status?: { userInfo?: { username?: string } } }>(
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } },
    );
    return review.status?.userInfo?.username;
  }

  it('uses the new token once the kubeconfig tokenFile is replaced by another identity', async () => {
    const [tokenA, tokenB] = [await tokenOf('identity-a'), await tokenOf('identity-b')];
    const dir = mkdtempSync(join(cp.dir, 'token-file-'));
    const tokenPath = join(dir, 'token');
    writeFileSync(tokenPath, tokenA);
    // A relative tokenFile, as client-go resolves it: against the kubeconfig's own folder.
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfigPath,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'harness', cluster: { server: cp.server, 'certificate-authority-data': Buffer.from(cp.caPem).toString('base64') } },
        ],
        users: [{ name: 'rotating', user: { tokenFile: 'token' } }],
        contexts: [{ name: 'rotating', context: { cluster: 'harness', user: 'rotating' } }],
        'current-context': 'rotating',
      }),
    );
    const tokenFile = kubeconfigTokenFile(kubeconfigPath);
    assert.equal(tokenFile, tokenPath);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    const http = new KubeHttp(kubeConfig, { tokenFile, tokenRefreshMs: 500 });

    assert.equal(await whoAmI(http), `system:serviceaccount:${namespace}:identity-a`);
    // Swapped the way the kubelet swaps a projected token: a new file renamed over the old one.
    writeFileSync(`${tokenPath}.new`, tokenB);
    renameSync(`${tokenPath}.new`, tokenPath);
    await eventually('requests to go as identity-b', async () => (await whoAmI(http)) === `system:serviceaccount:${namespace}:identity-b`, {
      timeoutMs: 30_000,
    });
  });
});
