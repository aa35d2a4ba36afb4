import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueServingCert, newServingCa } from '../../../src/aggregated/pki/serving-pki.ts';

const dir = mkdtempSync(join(tmpdir(), 'x509-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const openssl = (args: string[], input?: string) => execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();
const file = (name: string, pem: string) => {
  writeFileSync(join(dir, name), pem);
  return join(dir, name);
};
const keyId = (text: string, label: string) => text.match(new RegExp(`${label}:\\s*\\n\\s*(?:keyid:)?([0-9A-F:]+)`))?.[1];

describe('the serving CA and the certificates it issues (x509.ts)', () => {
  const now = new Date();
  const ca = newServingCa(now);
  const caCert = new X509Certificate(ca.cert);
  const issuer = { cert: caCert, key: createPrivateKey(ca.key) };
  const serving = issueServingCert(issuer, 'coder-system', now);
  const servingCert = new X509Certificate(serving.cert);

  it('makes a ten-year P-256 CA named coder-k8s-apiserver-ca@<unix> in O coder-k8s, for signing certificates only', () => {
    assert.equal(caCert.subject, `O=coder-k8s\nCN=coder-k8s-apiserver-ca@${Math.floor(now.getTime() / 1000)}`);
    assert.equal(caCert.issuer, caCert.subject);
    assert.equal(caCert.ca, true);
    assert.ok(caCert.verify(caCert.publicKey) && caCert.checkPrivateKey(createPrivateKey(ca.key)));
    assert.equal(createPrivateKey(ca.key).asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.equal(new Date(caCert.validTo).getTime() - new Date(caCert.validFrom).getTime(), 3650 * 86_400_000 + 3_600_000);
    const text = openssl(['x509', '-noout', '-text'], ca.cert);
    assert.match(text, /Basic Constraints: critical\s*\n\s*CA:TRUE\n/);
    assert.match(text, /Key Usage: critical\s*\n\s*Certificate Sign, CRL Sign\n/);
    assert.doesNotMatch(text, /Extended Key Usage/);
  });

  it('issues a serving certificate that openssl and Node verify against the CA, with its key identifiers', () => {
    assert.equal(
      openssl(['verify', '-purpose', 'sslserver', '-CAfile', file('ca.crt', ca.cert), file('tls.crt', serving.cert)]).trim(),
      `${join(dir, 'tls.crt')}: OK`,
    );
    assert.ok(servingCert.checkIssued(caCert));
    assert.ok(servingCert.verify(caCert.publicKey));
    assert.ok(servingCert.checkPrivateKey(createPrivateKey(serving.key)));
    assert.equal(servingCert.ca, false);
    const caText = openssl(['x509', '-noout', '-text'], ca.cert);
    const text = openssl(['x509', '-noout', '-text'], serving.cert);
    assert.ok(keyId(caText, 'Subject Key Identifier'));
    assert.equal(keyId(text, 'Authority Key Identifier'), keyId(caText, 'Subject Key Identifier'));
    assert.notEqual(keyId(text, 'Subject Key Identifier'), keyId(caText, 'Subject Key Identifier'));
  });

  it('names the Service in the namespace four ways, for server authentication only, for a year from an hour ago', () => {
    assert.equal(servingCert.subject, 'CN=coder-k8s-apiserver.coder-system.svc');
    assert.equal(
      servingCert.subjectAltName,
      'DNS:coder-k8s-apiserver.coder-system.svc, DNS:coder-k8s-apiserver, DNS:coder-k8s-apiserver.coder-system, DNS:coder-k8s-apiserver.coder-system.svc.cluster.local',
    );
    assert.equal(servingCert.keyUsage?.join(','), '1.3.6.1.5.5.7.3.1');
    const second = (d: Date) => Math.floor(d.getTime() / 1000) * 1000;
    assert.equal(new Date(servingCert.validFrom).getTime(), second(new Date(now.getTime() - 3_600_000)));
    assert.equal(new Date(servingCert.validTo).getTime(), second(new Date(now.getTime() + 365 * 86_400_000)));
    const text = openssl(['x509', '-noout', '-text'], serving.cert);
    assert.match(text, /Key Usage: critical\s*\n\s*Digital Signature\n/);
    assert.match(text, /Extended Key Usage:\s*\n\s*TLS Web Server Authentication\n/);
  });

  it('never issues a certificate that outlives its CA', () => {
    const old = newServingCa(new Date(now.getTime() - 3600 * 86_400_000));
    const oldCa = new X509Certificate(old.cert);
    const cert = new X509Certificate(issueServingCert({ cert: oldCa, key: createPrivateKey(old.key) }, 'coder-system', now).cert);
    assert.equal(cert.validTo, oldCa.validTo);
  });
});
