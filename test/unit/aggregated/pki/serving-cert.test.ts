import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { planServingSecret } from '../../../../src/aggregated/pki/serving-cert.ts';
import { issueServingCert, newServingCa, servingNames } from '../../../../src/aggregated/pki/serving-pki.ts';
import { selfSignedCert } from '../../../../src/runtime/self-signed-cert.ts';
import type { ServingCert } from '../../../../src/runtime/x509.ts';

const namespace = 'coder-system';
const now = new Date();
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
const issuer = (ca: ServingCert) => ({ cert: new X509Certificate(ca.cert), key: createPrivateKey(ca.key) });
const certs = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];

/** Secret data as the API returns it (base64), from PEM or raw text by key. */
function secretData(pem: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(pem).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
}

function aSecret({ ca = newServingCa(now), servingIssuedAt = now, servingNamespace = namespace } = {}) {
  const serving = issueServingCert(issuer(ca), servingNamespace, servingIssuedAt);
  return { ca, serving, data: { 'ca.crt': ca.cert, 'ca.key': ca.key, 'tls.crt': serving.cert, 'tls.key': serving.key } };
}

function assertSignedBy(servingPem: string, caPem: string) {
  const [serving, ca] = [new X509Certificate(servingPem), new X509Certificate(caPem)];
  assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey), 'the serving certificate is signed by the CA');
}

describe('planServingSecret', () => {
  it('makes a CA and a serving certificate it signed for an empty Secret; ca.crt is the CA', () => {
    const plan = planServingSecret(undefined, namespace, now);
    assert.ok(plan.write && plan.newCa);
    assert.deepEqual(Object.keys(plan.write).sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    assert.equal(certs(plan.write['ca.crt']!).length, 1);
    assert.equal(new X509Certificate(plan.write['ca.crt']!).ca, true);
    assertSignedBy(plan.write['tls.crt']!, plan.write['ca.crt']!);
    assert.deepEqual(plan.material, { cert: plan.write['tls.crt'], key: plan.write['tls.key'], caBundle: plan.write['ca.crt'] });
  });

  it('serves a Secret whose serving certificate is signed by its CA and has life left, writing nothing', () => {
    const { ca, serving, data } = aSecret({ servingIssuedAt: daysAgo(200) });
    const plan = planServingSecret(secretData(data), namespace, now);
    assert.equal(plan.write, undefined);
    assert.deepEqual(plan.material, { ...serving, caBundle: ca.cert });
  });

  for (const [why, secret, reason] of [
    ['has less than a third of its year left', aSecret({ servingIssuedAt: daysAgo(250) }), /less than a third/],
    ['names another namespace', aSecret({ servingNamespace: 'elsewhere' }), /does not name the Service/],
  ] as const) {
    it(`renews a serving certificate that ${why} under the same CA, leaving ca.crt (the caBundle) as it is`, () => {
      const plan = planServingSecret(secretData(secret.data), namespace, now);
      assert.ok(plan.write && !plan.newCa);
      assert.match(plan.reasons.join('; '), reason);
      assert.equal(plan.write['ca.crt'], secret.ca.cert);
      assert.equal(plan.write['ca.key'], secret.ca.key);
      assert.equal(plan.material.caBundle, secret.ca.cert);
      assert.notEqual(plan.write['tls.crt'], secret.serving.cert);
      assertSignedBy(plan.write['tls.crt']!, secret.ca.cert);
      assert.ok(servingNames(namespace).every((n) => new X509Certificate(plan.material.cert).checkHost(n)));
    });
  }

  it('upgrades the self-signed layout (no ca.key): a new CA, and ca.crt trusts it and the old certificate while it is valid', () => {
    const old = selfSignedCert(servingNames(namespace), { now: daysAgo(100) });
    const plan = planServingSecret(secretData({ 'ca.crt': old.cert, 'tls.crt': old.cert, 'tls.key': old.key }), namespace, now);
    assert.ok(plan.write && plan.newCa);
    const [newCa, previous, ...rest] = certs(plan.write['ca.crt']!);
    assert.deepEqual([previous, rest], [old.cert, []]);
    assert.ok(new X509Certificate(newCa!).checkPrivateKey(createPrivateKey(plan.write['ca.key']!)));
    assertSignedBy(plan.write['tls.crt']!, newCa!);
    assert.equal(plan.material.caBundle, plan.write['ca.crt']);
  });

  it('replaces a CA near its expiry, keeping the old CA trusted while it is valid, and drops expired certificates', () => {
    const oldCa = newServingCa(daysAgo(3000));
    const expired = selfSignedCert(['gone'], { days: 30, now: daysAgo(400) });
    const { data } = aSecret({ ca: oldCa });
    const plan = planServingSecret(secretData({ ...data, 'ca.crt': `${oldCa.cert}${expired.cert}` }), namespace, now);
    assert.ok(plan.write && plan.newCa);
    assert.match(plan.reasons.join('; '), /the CA has less than a third/);
    const [newCa, ...kept] = certs(plan.write['ca.crt']!);
    assert.deepEqual(kept, [oldCa.cert]);
    assertSignedBy(plan.write['tls.crt']!, newCa!);
  });

  // Unreadable fields are replaced, never a reason to stop serving: whatever the aggregator trusted and
  // is still readable stays in ca.crt, so it can verify every replica while they switch.
  const good = aSecret();
  const otherCa = aSecret();
  for (const [what, fields, keepsCa, reason] of [
    ['tls.crt is not PEM', { 'tls.crt': 'not a certificate' }, true, /tls\.crt is not a PEM certificate/],
    ['tls.key is not a key', { 'tls.key': 'not a key' }, true, /tls\.key is not a PEM private key/],
    ['tls.key is another key', { 'tls.key': otherCa.serving.key }, true, /tls\.key is not the key of tls\.crt/],
    [
      'tls.crt is of another CA',
      { 'tls.crt': otherCa.serving.cert, 'tls.key': otherCa.serving.key },
      true,
      /tls\.crt is not signed by the CA of ca\.crt/,
    ],
    ['ca.key is not a key', { 'ca.key': 'not a key' }, false, /ca\.key is not a PEM private key/],
    ['ca.key is another key', { 'ca.key': otherCa.ca.key }, false, /ca\.crt holds no CA certificate of ca\.key/],
    ['ca.crt is not PEM', { 'ca.crt': 'garbage' }, false, /ca\.crt holds a block that is not a PEM certificate/],
  ] as const) {
    it(`replaces what is unusable when ${what}, keeping what the aggregator trusts`, () => {
      const plan = planServingSecret(secretData({ ...good.data, ...fields }), namespace, now);
      assert.ok(plan.write);
      assert.match(plan.reasons.join('; '), reason);
      assert.ok(!plan.reasons.join('').includes('BEGIN'), 'no key or certificate in the reasons');
      if (keepsCa) {
        assert.equal(plan.newCa, undefined);
        assert.equal(plan.write['ca.crt'], good.ca.cert);
        assertSignedBy(plan.write['tls.crt']!, good.ca.cert);
      } else {
        assert.equal(plan.newCa, true);
        const [newCa, ...kept] = certs(plan.write['ca.crt']!);
        assertSignedBy(plan.write['tls.crt']!, newCa!);
        if (!('ca.crt' in fields)) assert.deepEqual(kept, [good.ca.cert], 'the old CA is still trusted');
      }
    });
  }
});
