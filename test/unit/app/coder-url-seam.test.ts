// The Coder URL seam for tests: only a loopback URL given by flag redirects Coder calls; the old environment
// variable CODER_K8S_CODER_URL_OVERRIDE does nothing.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { parseOperatorArgs, UsageError, type OperatorOptions } from '../../../src/app/options.ts';
import { operatorCoderClients } from '../../../src/app/run-operator.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

const cp: CoderControlPlane = {
  apiVersion: 'coder.com/v1alpha1',
  kind: 'CoderControlPlane',
  metadata: { namespace: 'seam-test', name: 'coder', uid: 'u' },
  spec: {},
};

describe('the test-only Coder URL', () => {
  let server: Server;
  let url: string;
  let requests = 0;
  before(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"features":{},"warnings":[],"errors":[],"has_license":false}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    delete process.env.CODER_K8S_CODER_URL_OVERRIDE;
    server.close();
  });
  const logger = createLogger({ level: 'silent' });

  it('sends Coder calls to a loopback --test-only-coder-url', async () => {
    const options = parseOperatorArgs([`--test-only-coder-url=${url}`]) as OperatorOptions;
    requests = 0;
    await operatorCoderClients(options, logger)(cp, 'token').getEntitlements();
    assert.equal(requests, 1);
  });

  it('ignores CODER_K8S_CODER_URL_OVERRIDE: calls go to the Service of the control plane', async () => {
    process.env.CODER_K8S_CODER_URL_OVERRIDE = url;
    const options = parseOperatorArgs([]) as OperatorOptions;
    assert.equal(options.testOnlyCoderUrl, undefined);
    requests = 0;
    await assert.rejects(operatorCoderClients(options, logger)(cp, 'token').getEntitlements());
    assert.equal(requests, 0, 'the token never reached the URL in the environment');
  });

  for (const value of [
    'http://10.0.0.1',
    'http://coder.example.com',
    'http://localhost:3000',
    'http://127.0.0.1.example.com',
    'ftp://127.0.0.1',
    'not a url',
    '',
  ]) {
    it(`refuses ${JSON.stringify(value)} with a one-line error`, () => {
      assert.throws(
        () => parseOperatorArgs([`--test-only-coder-url=${value}`]),
        (err) =>
          err instanceof UsageError &&
          err.message ===
            '--test-only-coder-url: expected an http(s) URL on a loopback address (127.0.0.1 or [::1]); the flag is for tests only',
      );
    });
  }
  it('accepts [::1] and any 127.0.0.0/8 address', () => {
    for (const value of ['http://[::1]:8080', 'https://127.0.0.2:443/']) {
      assert.equal((parseOperatorArgs([`--test-only-coder-url=${value}`]) as OperatorOptions).testOnlyCoderUrl, value);
    }
  });
});
