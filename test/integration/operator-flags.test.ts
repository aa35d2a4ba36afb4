// `coder-k8s` as a process with flags it must refuse: one line naming the flag and the fix, exit 1, and
// nothing of a kubeconfig's content on stderr. None of these reach a cluster.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'coder-k8s.js');
const helpHint = '\nRun coder-k8s --help for the flags.\n';

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: repo, timeout: 60_000, env: { ...process.env, ...env } }, (err, _stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('coder-k8s flag errors', () => {
  let dir: string;
  let brokenKubeconfig: string;
  const token = 'eyJhbGciOiJSUzI1NiIsImtpZCI6InNlY3JldC10b2tlbiJ9';

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'coder-k8s-flags-'));
    brokenKubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      brokenKubeconfig,
      `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: ${token}\n   client-key-data: x\n`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const usageErrors: [string[], string][] = [
    [['--watch-namespace='], '--watch-namespace is empty: name a namespace, or leave the flag out to watch all namespaces'],
    [
      ['--watch-namespace=a', '--watch-namespace= '],
      '--watch-namespace is empty: name a namespace, or leave the flag out to watch all namespaces',
    ],
    [['--max-concurrent-reconciles=1000000'], '--max-concurrent-reconciles=1000000: expected a whole number from 1 to 100'],
    [['--max-concurrent-reconciles=0x10'], '--max-concurrent-reconciles=0x10: expected a whole number from 1 to 100'],
    [['--graceful-shutdown-timeout=1e12'], '--graceful-shutdown-timeout=1e12: expected a whole number from 1 to 3600'],
    [['--graceful-shutdown-timeout=86400'], '--graceful-shutdown-timeout=86400: expected a whole number from 1 to 3600'],
    [
      ['--test-only-coder-url=https://coder.example.com'],
      '--test-only-coder-url: expected an http(s) URL on a loopback address (127.0.0.1 or [::1]); the flag is for tests only',
    ],
  ];
  for (const [args, message] of usageErrors) {
    it(`refuses ${args.join(' ')} with one line naming the flag`, async () => {
      const { code, stderr } = await run(['--app=controller', ...args]);
      assert.equal(code, 1);
      assert.equal(stderr, `coder-k8s: ${message}\n${helpHint}`);
    });
  }

  it('names the line of a kubeconfig YAML error without printing any of its content', async () => {
    const expected = `coder-k8s: kubeconfig ${brokenKubeconfig} is not valid YAML at line 7, column 4: bad indentation of a mapping entry\n`;
    const byFlag = await run(['--app=controller', `--kubeconfig=${brokenKubeconfig}`]);
    assert.equal(byFlag.code, 1);
    assert.equal(byFlag.stderr, expected);
    const byEnv = await run(['--app=controller'], { KUBECONFIG: brokenKubeconfig });
    assert.equal(byEnv.stderr, expected);
    assert.ok(!byFlag.stderr.includes(token.slice(0, 12)) && !byEnv.stderr.includes(token.slice(0, 12)));
  });
});
