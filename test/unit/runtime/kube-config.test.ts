import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadSimpleKubeConfig } from '../../../src/runtime/kube-config.ts';
import { tempDir } from '../../harness/temp-dir.ts';

const dir = tempDir('kubeconfig');
const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nnot a real one\n-----END CERTIFICATE-----\n');

function kubeconfig(name: string, user: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
  const path = join(dir, name);
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    clusters: [
      { name: 'k', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': ca.toString('base64'), ...cluster } },
    ],
    users: [{ name: 'u', user }],
  };
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

describe('loadSimpleKubeConfig', () => {
  it('reads the server, the CA and a bearer token of the current context', async () => {
    const config = loadSimpleKubeConfig(kubeconfig('token', { token: 'abc' }, { 'tls-server-name': 'kubernetes' }))!;
    assert.deepEqual(config.getCurrentCluster(), { server: 'https://127.0.0.1:6443' });
    const options: RequestOptions = {};
    await config.applyToHTTPSOptions(options);
    assert.deepEqual(options.ca, ca);
    assert.equal(options.servername, 'kubernetes');
    assert.deepEqual(options.headers, { Authorization: 'Bearer abc' });
  });

  it('hands a token file, relative to the kubeconfig, to be read again as it rotates', () => {
    const config = loadSimpleKubeConfig(kubeconfig('token-file', { tokenFile: 'token' }))!;
    assert.deepEqual(config.getCurrentUser(), { authProvider: { config: { tokenFile: join(dir, 'token') } } });
  });

  it('leaves exec plugins, proxies and files it cannot parse to the full client library', () => {
    assert.equal(loadSimpleKubeConfig(kubeconfig('exec', { exec: { command: 'aws' } })), undefined);
    assert.equal(loadSimpleKubeConfig(kubeconfig('proxy', { token: 'abc' }, { 'proxy-url': 'http://proxy:3128' })), undefined);
    const broken = join(dir, 'broken');
    writeFileSync(broken, 'users:\n- name: u\n  user:\n    token: x\n   client-key-data: x\n');
    assert.equal(loadSimpleKubeConfig(broken), undefined);
  });
});
