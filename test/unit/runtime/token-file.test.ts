import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { kubeconfigTokenFile, TokenFile } from '../../../src/runtime/token-file.ts';
import { tempDir } from '../../harness/temp-dir.ts';

const dir = tempDir('token-file');

describe('TokenFile', () => {
  it('reads the file again once the refresh period has passed, not before', async () => {
    const path = join(dir, 'refresh');
    writeFileSync(path, 'token-a\n');
    const file = new TokenFile(path, 60_000);
    assert.equal(await file.token(), 'token-a');
    writeFileSync(path, 'token-b');
    assert.equal(await file.token(), 'token-a');
    const quick = new TokenFile(path, 0);
    assert.equal(await quick.token(), 'token-b');
    writeFileSync(path, 'token-c');
    assert.equal(await quick.token(), 'token-c');
  });

  it('keeps the last token when a re-read fails, and names the file (not the token) when the first read fails', async () => {
    const path = join(dir, 'vanishing');
    writeFileSync(path, 'token-a');
    const file = new TokenFile(path, 0);
    assert.equal(await file.token(), 'token-a');
    rmSync(path);
    assert.equal(await file.token(), 'token-a');
    await assert.rejects(new TokenFile(join(dir, 'absent'), 0).token(), /cannot read the API server token file .*absent: ENOENT/);
  });
});

describe('kubeconfigTokenFile', () => {
  const kubeconfig = (user: Record<string, string>) =>
    stringify({
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
      users: [
        { name: 'other', user: { tokenFile: '/elsewhere' } },
        { name: 'me', user },
      ],
      contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'me' } }],
      'current-context': 'ctx',
    });

  it("finds the current user's tokenFile, relative to the kubeconfig's folder", () => {
    mkdirSync(join(dir, 'kc'), { recursive: true });
    writeFileSync(join(dir, 'kc', 'config'), kubeconfig({ tokenFile: 'sa/token' }));
    assert.equal(kubeconfigTokenFile(join(dir, 'kc', 'config')), join(dir, 'kc', 'sa', 'token'));
  });

  it('takes the client-node spelling token-file too, and nothing when the user has a literal token', () => {
    writeFileSync(join(dir, 'dash'), kubeconfig({ 'token-file': '/var/run/token' }));
    assert.equal(kubeconfigTokenFile(join(dir, 'dash')), '/var/run/token');
    writeFileSync(join(dir, 'literal'), kubeconfig({ token: 'abc' }));
    assert.equal(kubeconfigTokenFile(join(dir, 'literal')), undefined);
  });
});
