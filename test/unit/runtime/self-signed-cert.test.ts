import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { selfSignedCert } from '../../../src/runtime/self-signed-cert.ts';

describe('selfSignedCert', () => {
  const now = new Date('2026-06-01T00:00:00Z');
  const { cert, key } = selfSignedCert(['coder-k8s.coder-system.svc', 'localhost', '127.0.0.1', '::1'], { now });
  const x509 = new X509Certificate(cert);

  it('is a certificate signed by its own key, for the names given', () => {
    assert.ok(x509.verify(x509.publicKey));
    assert.ok(x509.checkPrivateKey(createPrivateKey(key)));
    assert.equal(x509.subjectAltName, 'DNS:coder-k8s.coder-system.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(x509.subject, 'CN=coder-k8s.coder-system.svc');
    assert.equal(x509.ca, false);
  });

  it('is well-formed DER whatever the random serial and key (1000 certificates)', () => {
    for (let i = 0; i < 1000; i++) {
      const { cert } = selfSignedCert(['localhost']);
      const x509 = new X509Certificate(cert);
      assert.ok(x509.verify(x509.publicKey), `certificate ${i} verifies`);
    }
  });

  it('is valid from an hour before now for a year', () => {
    assert.equal(new Date(x509.validFrom).toISOString(), '2026-05-31T23:00:00.000Z');
    assert.equal(new Date(x509.validTo).toISOString(), '2027-06-01T00:00:00.000Z');
  });

  it('parses with openssl as a serving certificate', () => {
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: cert }).toString();
    assert.match(text, /TLS Web Server Authentication/);
    assert.match(text, /Digital Signature/);
  });
});
