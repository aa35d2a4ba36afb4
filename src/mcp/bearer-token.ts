// The MCP server's one credential: a token read once from --mcp-token-file, and the check of a
// request's Authorization header against it (SHA-256 digests compared in constant time, so neither the
// token's length nor a matching prefix shows in the answer time).
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { StartupError } from '../runtime/startup-error.ts';

export const minTokenBytes = 32;

/** The token in `path`, without one trailing newline; a file unfit to be the only credential is refused. */
export function readBearerToken(path: string): string {
  let raw: Buffer;
  try {
    raw = readFileSync(path);
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : code;
    throw new StartupError(`read --mcp-token-file "${path}": ${why ?? 'cannot read it'}`);
  }
  let text = raw.toString('utf8');
  if (text.endsWith('\n')) text = text.slice(0, -1);
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.length === 0)
    throw new StartupError(`--mcp-token-file "${path}" is empty: write a random token of at least ${minTokenBytes} bytes to it`);
  const bytes = Buffer.byteLength(text);
  if (bytes < minTokenBytes) {
    throw new StartupError(`--mcp-token-file "${path}" holds ${bytes} bytes; at least ${minTokenBytes} are required`);
  }
  if (/\s/.test(text)) throw new StartupError(`--mcp-token-file "${path}" must hold a single token without whitespace`);
  return text;
}

/** A check of `Authorization: Bearer <token>` (scheme in any case, exactly one credential). */
export function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (authorization) => {
    const presented = /^Bearer ([^\s]+)$/i.exec(authorization ?? '')?.[1];
    if (presented === undefined) return false;
    return timingSafeEqual(createHash('sha256').update(presented).digest(), expected);
  };
}
