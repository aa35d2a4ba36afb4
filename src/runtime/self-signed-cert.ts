// A self-signed serving certificate (ECDSA P-256, DER written here: Node can sign but not build X.509)
// for the metrics endpoint when no --metrics-cert-dir is given, as controller-runtime does.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

export interface ServingCert {
  cert: string;
  key: string;
}

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
const bitString = (content: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));
const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));

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

const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));

/** A certificate for `names` (DNS names and IP addresses), valid from an hour ago for `days`. */
export function selfSignedCert(names: string[], { days = 365, now = new Date() }: { days?: number; now?: Date } = {}): ServingCert {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const commonName = names.find((n) => isIP(n) === 0) ?? 'coder-k8s';
  const name = sequence(set(sequence(oid('2.5.4.3'), utf8String(commonName))));
  // Positive, and with a first byte that is not zero: DER forbids a leading zero byte before a byte < 0x80.
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  const altNames = sequence(...names.map((n) => (isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii')))));
  const extensions = sequence(
    sequence(oid('2.5.29.19'), tlv(0x01, Buffer.from([0xff])), octetString(sequence())),
    sequence(oid('2.5.29.15'), tlv(0x01, Buffer.from([0xff])), octetString(tlv(0x03, Buffer.from([0x07, 0x80])))),
    sequence(oid('2.5.29.37'), octetString(sequence(oid('1.3.6.1.5.5.7.3.1')))),
    sequence(oid('2.5.29.17'), octetString(altNames)),
  );
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    name,
    sequence(time(new Date(now.getTime() - 3_600_000)), time(new Date(now.getTime() + days * 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const certificate = sequence(tbs, ecdsaWithSha256, bitString(sign('sha256', tbs, privateKey)));
  const base64 = certificate.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${base64}${base64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
