// Coder API key material: a 10-character id and a 22-character secret, stored as SHA-256 of the secret.
import { createHash, randomBytes } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The largest multiple of 62 that fits in a byte: bytes at or above it are drawn again, so no bias. */
const acceptBelow = 256 - (256 % alphabet.length);

const apiKeyIdLength = 10;
const apiKeySecretLength = 22;

export type RandomSource = (size: number) => Uint8Array;

/** `length` characters of [0-9A-Za-z], uniformly, by rejection sampling over `random`. */
export function randomAlphanumeric(length: number, random: RandomSource = randomBytes): string {
  let out = '';
  while (out.length < length) {
    // Ask for a little more than needed: about 3% of bytes are rejected.
    const bytes = random(Math.ceil((length - out.length) * 1.1) + 2);
    for (const byte of bytes) {
      if (byte >= acceptBelow) continue;
      out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export interface GeneratedToken {
  id: string;
  secret: string;
  /** `<id>-<secret>`, what a client sends as Coder-Session-Token. */
  token: string;
}

export function generateToken(random: RandomSource = randomBytes): GeneratedToken {
  const id = randomAlphanumeric(apiKeyIdLength, random);
  const secret = randomAlphanumeric(apiKeySecretLength, random);
  return { id, secret, token: `${id}-${secret}` };
}

/** What Coder stores in api_keys.hashed_secret: the raw 32-byte SHA-256 of the secret part only. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Splits a token at its first '-'; undefined unless both parts are non-empty. */
export function splitToken(token: string): { id: string; secret: string } | undefined {
  const dash = token.indexOf('-');
  if (dash <= 0 || dash === token.length - 1) return undefined;
  return { id: token.slice(0, dash), secret: token.slice(dash + 1) };
}
