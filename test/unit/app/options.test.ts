import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOperatorArgs, UsageError, type OperatorOptions } from '../../../src/app/options.ts';

describe('operator flags', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(parseOperatorArgs([]), {
      app: 'all',
      kubeconfig: undefined,
      watchNamespaces: [],
      leaderElect: true,
      leaderElectionNamespace: undefined,
      maxConcurrentReconciles: 10,
      kubeApiQps: 200,
      kubeApiBurst: 400,
      metricsBindAddress: ':8443',
      metricsSecure: true,
      metricsCertDir: undefined,
      healthProbeBindAddress: ':8081',
      logLevel: 'info',
      gracefulShutdownTimeoutMs: 30_000,
      coderResyncPeriodMs: 600_000,
      aggregated: {
        bindAddress: '0.0.0.0',
        securePort: 6443,
        coderRequestTimeoutMs: 30_000,
        maxRequestsInflight: 400,
        maxMutatingRequestsInflight: 200,
      },
    } satisfies OperatorOptions);
  });

  it('takes --coder-resync-period in seconds and refuses 0', () => {
    assert.equal((parseOperatorArgs(['--coder-resync-period=15']) as OperatorOptions).coderResyncPeriodMs, 15_000);
    assert.throws(() => parseOperatorArgs(['--coder-resync-period=0']), /--coder-resync-period=0: expected a whole number from 1 to 86400/);
  });

  it("takes the Go original's aggregated API server flags with their meaning", () => {
    const o = parseOperatorArgs([
      '--app=aggregated-apiserver',
      '--coder-url=https://coder.example.com',
      '--coder-session-token= tok ',
      '--coder-namespace=coder',
      '--coder-request-timeout=45s',
      '--secure-port=7443',
      '--max-requests-inflight=10',
      '--max-mutating-requests-inflight=5',
    ]) as OperatorOptions;
    assert.deepEqual(o.aggregated, {
      bindAddress: '0.0.0.0',
      securePort: 7443,
      coderUrl: 'https://coder.example.com',
      coderSessionToken: 'tok',
      coderNamespace: 'coder',
      coderRequestTimeoutMs: 45_000,
      maxRequestsInflight: 10,
      maxMutatingRequestsInflight: 5,
    });
    assert.throws(() => parseOperatorArgs(['--max-requests-inflight=0']), /--max-requests-inflight=0: expected a whole number from 1/);
    const fromFile = parseOperatorArgs([
      '--app=aggregated-apiserver',
      '--coder-session-token-file=/var/run/coder/token',
    ]) as OperatorOptions;
    assert.equal(fromFile.aggregated.coderSessionTokenFile, '/var/run/coder/token');
    assert.throws(
      () => parseOperatorArgs(['--coder-session-token=tok', '--coder-session-token-file=/var/run/coder/token']),
      /--coder-session-token and --coder-session-token-file: give one of them, not both/,
    );
    assert.equal((parseOperatorArgs(['--coder-request-timeout=1m30s']) as OperatorOptions).aggregated.coderRequestTimeoutMs, 90_000);
    assert.equal((parseOperatorArgs(['--coder-request-timeout=0']) as OperatorOptions).aggregated.coderRequestTimeoutMs, 30_000);
    assert.throws(() => parseOperatorArgs(['--coder-request-timeout=-1s']), /must not be negative/);
    assert.throws(() => parseOperatorArgs(['--coder-request-timeout=soon']), /expected a duration/);
    assert.throws(() => parseOperatorArgs(['--coder-url=ftp://coder.example.com']), /scheme must be http or https/);
    assert.throws(() => parseOperatorArgs(['--coder-url=coder.example.com']), /must include scheme and host/);
  });

  it('takes repeated namespaces and the controller mode', () => {
    const o = parseOperatorArgs([
      '--app=controller',
      '--watch-namespace=a',
      '--watch-namespace',
      'b',
      '--watch-namespace=a',
      '--leader-elect=false',
      '--max-concurrent-reconciles=4',
      '--metrics-bind-address=0',
    ]) as OperatorOptions;
    assert.deepEqual(
      [o.app, o.watchNamespaces, o.leaderElect, o.maxConcurrentReconciles, o.metricsBindAddress],
      ['controller', ['a', 'b'], false, 4, '0'],
    );
  });

  it('takes a request budget, a shard selector and its Lease name', () => {
    const o = parseOperatorArgs([
      '--kube-api-qps=20',
      '--kube-api-burst=30',
      '--selector= shard=a ',
      '--leader-election-id=coder-k8s-shard-a',
    ]) as OperatorOptions;
    assert.deepEqual([o.kubeApiQps, o.kubeApiBurst, o.selector, o.leaderElectionId], [20, 30, 'shard=a', 'coder-k8s-shard-a']);
    assert.throws(() => parseOperatorArgs(['--kube-api-qps=0']), /--kube-api-qps=0: expected a whole number from 1 to 10000/);
    assert.throws(() => parseOperatorArgs(['--selector=']), /--selector is empty/);
    assert.throws(() => parseOperatorArgs(['--leader-election-id=Shard_A']), /--leader-election-id=Shard_A: expected a Lease name/);
  });

  it('serves metrics without TLS and authentication only on a loopback address', () => {
    for (const address of ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080', '0']) {
      assert.equal(
        (parseOperatorArgs(['--metrics-secure=false', `--metrics-bind-address=${address}`]) as OperatorOptions).metricsSecure,
        false,
      );
    }
    for (const address of [':8080', '0.0.0.0:8080', '10.0.0.5:8080']) {
      assert.throws(
        () => parseOperatorArgs(['--metrics-secure=false', `--metrics-bind-address=${address}`]),
        (err) => err instanceof UsageError && /--metrics-secure=false .* needs a loopback --metrics-bind-address/.test(err.message),
      );
    }
    assert.throws(() => parseOperatorArgs(['--metrics-secure=false']), /loopback/);
    assert.equal((parseOperatorArgs(['--metrics-cert-dir=/certs']) as OperatorOptions).metricsCertDir, '/certs');
  });

  it('names the valid modes for an unknown --app', () => {
    assert.throws(
      () => parseOperatorArgs(['--app=operator']),
      (err) =>
        err instanceof UsageError &&
        /--app=operator: unknown mode; valid modes are all, controller, aggregated-apiserver, mcp-http/.test(err.message),
    );
  });

  it("takes Go's single-dash spelling of every flag, as the Go original's manifests write them", () => {
    const go = parseOperatorArgs([
      '-app=controller',
      '-metrics-bind-address=:8080',
      '-leader-elect=false',
      '-watch-namespace',
      'a',
      '-watch-namespace=b',
      '-health-probe-bind-address=:9090',
    ]) as OperatorOptions;
    const dashes = parseOperatorArgs([
      '--app=controller',
      '--metrics-bind-address=:8080',
      '--leader-elect=false',
      '--watch-namespace',
      'a',
      '--watch-namespace=b',
      '--health-probe-bind-address=:9090',
    ]) as OperatorOptions;
    assert.deepEqual(go, dashes);
    assert.equal(go.app, 'controller');
    assert.equal(go.metricsBindAddress, ':8080');
    assert.deepEqual(go.watchNamespaces, ['a', 'b']);
    assert.equal(parseOperatorArgs(['-version']), 'version');
    assert.throws(() => parseOperatorArgs(['-app=operator']), /--app=operator: unknown mode/);
  });

  it('refuses an unknown flag in either spelling, naming it', () => {
    assert.throws(
      () => parseOperatorArgs(['-metrics-bind-adress=:8080']),
      (err) => err instanceof UsageError && /^unknown flag -metrics-bind-adress; --help lists the flags/.test(err.message),
    );
    assert.throws(
      () => parseOperatorArgs(['--metrics-bind-adress=:8080']),
      (err) => err instanceof UsageError && /'--metrics-bind-adress'/.test(err.message),
    );
  });

  it('rejects bad values and unknown flags with the flag named', () => {
    assert.throws(() => parseOperatorArgs(['--leader-elect=yes']), /--leader-elect=yes: expected true or false/);
    assert.throws(() => parseOperatorArgs(['--max-concurrent-reconciles=0']), /--max-concurrent-reconciles=0/);
    assert.throws(() => parseOperatorArgs(['--watch-namespaces=a']), /watch-namespaces/);
    assert.equal(parseOperatorArgs(['--version']), 'version');
    assert.equal(parseOperatorArgs(['--help']), 'help');
  });
});
