import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { serveHttp, type HttpEndpoint } from '../../../src/runtime/http-endpoint.ts';
import { metricsServingCert, reloadMetricsCert } from '../../../src/runtime/metrics-tls.ts';
import { selfSignedCert, type ServingCert } from '../../../src/runtime/self-signed-cert.ts';
import { eventually } from '../../harness/wait.ts';
import { tempDir } from '../../harness/temp-dir.ts';

function writeCertDir(dir: string, cert: ServingCert): void {
  // Swapped whole, as a Secret volume is updated.
  writeFileSync(join(dir, 'tls.crt.new'), cert.cert);
  writeFileSync(join(dir, 'tls.key.new'), cert.key);
  renameSync(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
  renameSync(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
}

function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

describe('metrics certificate from --metrics-cert-dir', () => {
  const dir = tempDir('metrics-cert');
  let endpoint: HttpEndpoint | undefined;
  let stop: (() => void) | undefined;
  after(async () => {
    stop?.();
    await endpoint?.close();
  });

  it('names the file it cannot read', () => {
    assert.throws(() => metricsServingCert(join(dir, 'absent')), /--metrics-cert-dir: cannot read .*absent\/tls\.crt: ENOENT/);
  });

  it('serves a renewed certificate without a restart', async () => {
    const first = selfSignedCert(['localhost']);
    const renewed = selfSignedCert(['localhost']);
    writeCertDir(dir, first);
    endpoint = await serveHttp('127.0.0.1:0', (_req, res) => void res.end('ok'), metricsServingCert(dir));
    assert.equal(await servedFingerprint(endpoint!.port), new X509Certificate(first.cert).fingerprint256);
    stop = reloadMetricsCert(dir, endpoint!, { periodMs: 100 });
    writeCertDir(dir, renewed);
    const expected = new X509Certificate(renewed.cert).fingerprint256;
    await eventually('the renewed certificate to be served', async () => (await servedFingerprint(endpoint!.port)) === expected, {
      timeoutMs: 20_000,
    });
  });
});
