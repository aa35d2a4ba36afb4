// `coder-k8s` as a process with flags or a kubeconfig it cannot use: one line naming what is wrong and the
// fix, exit 1, no stack trace, and nothing of a kubeconfig's content on stderr. None of these reach a cluster.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';

const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'coder-k8s.js');
const helpHint = '\nRun coder-k8s --help for the flags.\n';

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: repo, timeout: 60_000, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A loopback port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Flags that keep the operator off every port, so only the kubeconfig matters. */
const quiet = ['--app=controller', '--leader-elect=false', '--metrics-bind-address=0', '--health-probe-bind-address=0'];

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
    [['--kube-api-qps=0'], '--kube-api-qps=0: expected a whole number from 1 to 10000'],
    [['--selector= '], '--selector is empty: give a label selector such as shard=a, or leave the flag out to reconcile all objects'],
    [['--graceful-shutdown-timeout=1e12'], '--graceful-shutdown-timeout=1e12: expected a whole number from 1 to 3600'],
    [['--graceful-shutdown-timeout=86400'], '--graceful-shutdown-timeout=86400: expected a whole number from 1 to 3600'],
    [
      ['--test-only-coder-url=https://coder.example.com'],
      '--test-only-coder-url: expected an http(s) URL on a loopback address (127.0.0.1 or [::1]); the flag is for tests only',
    ],
    [['-kube-api-qps=0'], '--kube-api-qps=0: expected a whole number from 1 to 10000'],
    [['-metrics-bind-adress=:8080'], 'unknown flag -metrics-bind-adress; --help lists the flags (each may be written -name or --name)'],
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

  it('lists the same --log-level values in its error as in --help', async () => {
    const help = await run(['--help']);
    const listed = /--log-level=LEVEL +(.*)/.exec(help.stdout)?.[1];
    assert.equal(listed, 'trace, debug, info (default), warn or error');
    const { code, stderr } = await run(['--log-level=verbose']);
    assert.equal(code, 1);
    assert.equal(stderr, `coder-k8s: --log-level=verbose: expected ${listed}\n${helpHint}`);
  });

  describe('kubeconfig start-up errors', () => {
    let home: string;
    const noKubeconfig = () => ({ HOME: home, KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' });

    before(() => {
      home = mkdtempSync(join(tmpdir(), 'coder-k8s-home-'));
    });
    after(() => rmSync(home, { recursive: true, force: true }));

    it('says how to point it at a cluster when there is no kubeconfig at all', async () => {
      const { code, stderr } = await run(quiet, noKubeconfig());
      assert.equal(code, 1);
      assert.equal(
        stderr,
        'coder-k8s: no Kubernetes cluster configured (no --kubeconfig, no KUBECONFIG, no ~/.kube/config, not in a pod): ' +
          'pass --kubeconfig=PATH or set KUBECONFIG\n',
      );
    });

    it("takes the Go original's single-dash flags: the same start as with two dashes", async () => {
      const go = await run(
        ['-app=controller', '-leader-elect=false', '-metrics-bind-address=0', '-health-probe-bind-address', '0'],
        noKubeconfig(),
      );
      const dashes = await run(quiet, noKubeconfig());
      assert.equal(go.code, 1);
      assert.match(go.stderr, /^coder-k8s: no Kubernetes cluster configured/);
      assert.equal(go.stderr, dashes.stderr);
    });

    it('names a kubeconfig file that does not exist and where it was given', async () => {
      const missing = join(dir, 'no-such-kubeconfig');
      const byFlag = await run([...quiet, `--kubeconfig=${missing}`], noKubeconfig());
      assert.equal(byFlag.code, 1);
      assert.equal(
        byFlag.stderr,
        `coder-k8s: kubeconfig ${missing} does not exist: check --kubeconfig, or leave it out to use ~/.kube/config\n`,
      );
      const byEnv = await run(quiet, { ...noKubeconfig(), KUBECONFIG: missing });
      assert.equal(byEnv.code, 1);
      assert.equal(
        byEnv.stderr,
        `coder-k8s: kubeconfig ${missing} does not exist: check KUBECONFIG, or leave it out to use ~/.kube/config\n`,
      );
      const valid = join(dir, 'valid-kubeconfig');
      writeFileSync(valid, 'apiVersion: v1\nkind: Config\n');
      const inList = await run(quiet, { ...noKubeconfig(), KUBECONFIG: `${valid}${delimiter}${missing}` });
      assert.equal(inList.stderr, byEnv.stderr, 'names the file of the list that is missing');
    });

    it('names the API server it cannot reach', async () => {
      const server = `https://127.0.0.1:${await closedPort()}`;
      const kubeconfig = join(dir, 'refused-kubeconfig');
      writeFileSync(
        kubeconfig,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "${server}"}\n` +
          `users:\n- name: u\n  user: {token: ${token}}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n`,
      );
      const { code, stderr } = await run([...quiet, `--kubeconfig=${kubeconfig}`], noKubeconfig());
      assert.equal(code, 1);
      assert.equal(
        stderr,
        `coder-k8s: cannot reach the Kubernetes API server at ${server} (connection refused): ` +
          "check the server address of the kubeconfig's current context and that the cluster is running\n",
      );
    });

    it('shows an unexpected error as one line, and its stack trace only with --log-level=debug', async () => {
      const server = createHttpServer((_req, res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd is down' }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
        const kubeconfig = join(dir, 'failing-kubeconfig');
        writeFileSync(
          kubeconfig,
          `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "${url}", insecure-skip-tls-verify: true}\n` +
            `users:\n- name: u\n  user: {token: ${token}}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n`,
        );
        const plain = await run([...quiet, `--kubeconfig=${kubeconfig}`], noKubeconfig());
        assert.equal(plain.code, 1);
        assert.equal(
          plain.stderr,
          'coder-k8s: GET /apis/coder.com/v1alpha1: 500 InternalError: etcd is down (run with --log-level=debug for the stack trace)\n',
        );
        const debug = await run([...quiet, `--kubeconfig=${kubeconfig}`, '--log-level', 'debug'], noKubeconfig());
        assert.equal(debug.code, 1);
        assert.match(debug.stderr, /^coder-k8s: KubeApiError: GET \/apis\/coder\.com\/v1alpha1: 500 InternalError: etcd is down\n\s+at /);
        assert.ok(!plain.stderr.includes(token) && !debug.stderr.includes(token));
      } finally {
        server.close();
        server.closeAllConnections();
      }
    });
  });
});
