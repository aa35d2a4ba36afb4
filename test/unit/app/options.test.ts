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
      maxConcurrentReconciles: 1,
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
      logLevel: 'info',
      gracefulShutdownTimeoutMs: 30_000,
    } satisfies OperatorOptions);
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

  it('names the valid modes for an unknown --app', () => {
    assert.throws(
      () => parseOperatorArgs(['--app=operator']),
      (err) =>
        err instanceof UsageError &&
        /--app=operator: unknown mode; valid modes are all, controller, aggregated-apiserver, mcp-http/.test(err.message),
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
