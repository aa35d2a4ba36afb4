// X.509 certificates written as DER here, ECDSA P-256 with SHA-256: Node can sign and parse
// certificates but not build them, and the operator needs no more than a CA, the certificates it
// issues, and self-signed ones.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject, type X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

// DER: tag, length, content.
function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 + n, inner);
const octetString = (content: Buffer) => tlv(0x04, content);
const bitString = (content: Buffer, unusedBits = 0) => tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
const critical = tlv(0x01, Buffer.from([0xff]));

function integer(value: Buffer): Buffer {
  // DER integers are signed: a leading 1 bit needs a zero byte in front.
  return tlv(0x02, value[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first! * 40 + second!];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime through 2049, GeneralizedTime after, as RFC 5280 asks. */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head, tail = ''] = ip.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const missing = 8 - groups(head!).length - groups(tail).length;
  const all = ip.includes('::') ? [...groups(head!), ...Array<string>(missing).fill('0'), ...groups(tail)] : groups(ip);
  return Buffer.concat(all.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

/** Where the content of the DER value at `at` starts, and its length. */
function header(der: Buffer, at: number): { start: number; length: number } {
  const first = der[at + 1]!;
  if (first < 0x80) return { start: at + 2, length: first };
  let length = 0;
  for (let i = 0; i < (first & 0x7f); i++) length = length * 256 + der[at + 2 + i]!;
  return { start: at + 2 + (first & 0x7f), length };
}

/** The elements of a DER SEQUENCE (or any constructed value), each with its tag and length. */
function children(der: Buffer): Buffer[] {
  const outer = header(der, 0);
  const items: Buffer[] = [];
  for (let at = outer.start; at < outer.start + outer.length;) {
    const { start, length } = header(der, at);
    items.push(der.subarray(at, start + length));
    at = start + length;
  }
  return items;
}

const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
const serverAuth = '1.3.6.1.5.5.7.3.1';

/** A key pair and the certificate of its public key, both PEM. */
export interface ServingCert {
  cert: string;
  key: string;
}

/** Who signs a certificate: the issuer's certificate and private key. */
export interface Issuer {
  cert: X509Certificate;
  key: KeyObject;
}

export interface CertificateSpec {
  /** Relative distinguished names in order, such as [['O', 'coder-k8s'], ['CN', 'coder-k8s-ca']]. */
  subject: [attribute: 'O' | 'CN', value: string][];
  notBefore: Date;
  notAfter: Date;
  /** A CA (keyCertSign, cRLSign) or a serving certificate (digitalSignature, serverAuth) for `names`. */
  ca?: boolean;
  /** DNS names and IP addresses (subjectAltName) of a serving certificate. */
  names?: string[];
  /** Signed by this issuer; self-signed without one. */
  issuer?: Issuer;
}

const attributeOid = { O: '2.5.4.10', CN: '2.5.4.3' };

/** The subject of a certificate exactly as encoded, to be the issuer of what it signs. */
function subjectDer(cert: X509Certificate): Buffer {
  const tbs = children(children(cert.raw)[0]!);
  // version [0] is first when present; then serial, signature, issuer, validity, subject.
  return tbs[tbs[0]![0] === 0xa0 ? 5 : 4]!;
}

/** The key identifier RFC 5280 §4.2.1.2 method 1 gives: SHA-1 of the public key bits. */
function keyIdentifier(publicKey: KeyObject): Buffer {
  const bits = children(publicKey.export({ type: 'spki', format: 'der' }))[1]!;
  const { start, length } = header(bits, 0);
  // Past the BIT STRING's unused-bits byte.
  return createHash('sha1')
    .update(bits.subarray(start + 1, start + length))
    .digest();
}

/** A new P-256 key and the certificate `spec` describes for it. */
export function issueCertificate(spec: CertificateSpec): ServingCert {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const subject = sequence(...spec.subject.map(([attr, value]) => set(sequence(oid(attributeOid[attr]), utf8String(value)))));
  const issuerName = spec.issuer ? subjectDer(spec.issuer.cert) : subject;
  const authorityKey = spec.issuer ? keyIdentifier(spec.issuer.cert.publicKey) : keyIdentifier(publicKey);
  // Positive, and with a first byte that is not zero: DER forbids a leading zero byte before a byte < 0x80.
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  const names = spec.names ?? [];
  const altNames = sequence(...names.map((n) => (isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii')))));
  const extension = (id: string, value: Buffer, isCritical = false) =>
    sequence(oid(id), ...(isCritical ? [critical] : []), octetString(value));
  const extensions = spec.ca
    ? [
        extension('2.5.29.19', sequence(critical), true),
        // keyCertSign (bit 5) and cRLSign (bit 6); the last bit is unused.
        extension('2.5.29.15', bitString(Buffer.from([0x06]), 1), true),
      ]
    : [
        extension('2.5.29.19', sequence(), true),
        // digitalSignature (bit 0); seven unused bits.
        extension('2.5.29.15', bitString(Buffer.from([0x80]), 7), true),
        extension('2.5.29.37', sequence(oid(serverAuth))),
        ...(names.length ? [extension('2.5.29.17', altNames)] : []),
      ];
  extensions.push(extension('2.5.29.14', octetString(keyIdentifier(publicKey))));
  extensions.push(extension('2.5.29.35', sequence(tlv(0x80, authorityKey))));
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    issuerName,
    sequence(time(spec.notBefore), time(spec.notAfter)),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions)),
  );
  const certificate = sequence(tbs, ecdsaWithSha256, bitString(sign('sha256', tbs, spec.issuer?.key ?? privateKey)));
  const base64 = certificate.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${base64}${base64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
