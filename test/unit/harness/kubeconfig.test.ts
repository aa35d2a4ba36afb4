import { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeKubeconfig } from '../../harness/kubeconfig.ts';
import { tempDir } from '../../harness/temp-dir.ts';

describe('writeKubeconfig', () => {
  it('writes a token kubeconfig that client-node loads, readable only by its owner', async () => {
    const path = join(tempDir('kc'), 'sa.kubeconfig');
    await writeKubeconfig(
      path,
      'https://127.0.0.1:6443',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      'system:serviceaccount:ns:op',
      { token: 'abc.def' },
    );
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
    assert.equal(kc.getCurrentUser()?.token, 'abc.def');
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });
});
