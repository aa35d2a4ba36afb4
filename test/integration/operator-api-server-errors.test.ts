// `coder-k8s` as a process against a real API server that will not have it: credentials it rejects and a
// certificate the kubeconfig does not trust. One line naming the server and the fix, exit 1, no token shown.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { selfSignedCert } from '../../src/runtime/self-signed-cert.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { writeKubeconfig } from '../harness/kubeconfig.ts';

const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'coder-k8s.js');
const quiet = ['--app=controller', '--leader-elect=false', '--metrics-bind-address=0', '--health-probe-bind-address=0'];

function run(kubeconfig: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...quiet, `--kubeconfig=${kubeconfig}`], { cwd: repo, timeout: 60_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('coder-k8s start-up against an API server that refuses it', () => {
  let cp: ControlPlane;
  let dir: string;
  const token = 'not-a-token-the-api-server-knows-0123456789';

  before(async () => {
    cp = await startControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'coder-k8s-api-errors-'));
  });
  after(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says the credentials were rejected (401) and how to renew them', async () => {
    const kubeconfig = await writeKubeconfig(join(dir, 'bad-token'), cp.server, cp.caPem, 'stranger', { token });
    const { code, stderr } = await run(kubeconfig);
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `coder-k8s: the Kubernetes API server at ${cp.server} rejected the kubeconfig's credentials (401 Unauthorized): ` +
        'renew them (log in again, or a new token) or choose another context\n',
    );
    assert.ok(!stderr.includes(token));
  });

  it('says the server certificate is not trusted by the kubeconfig', async () => {
    const otherCa = selfSignedCert(['not-the-cluster-ca']).cert;
    const kubeconfig = await writeKubeconfig(join(dir, 'wrong-ca'), cp.server, otherCa, 'stranger', { token });
    const { code, stderr } = await run(kubeconfig);
    assert.equal(code, 1);
    assert.match(
      stderr,
      new RegExp(
        `^coder-k8s: the Kubernetes API server at ${cp.server.replaceAll('.', '\\.')} presented a certificate the kubeconfig does not trust \\([A-Z_]+\\): ` +
          "check the cluster's certificate-authority-data in the kubeconfig\\n$",
      ),
    );
  });
});
