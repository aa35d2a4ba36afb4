// Reading an answer's body with a ceiling: a body larger than the limit is never buffered past it.
import { CoderResponseTooLargeError } from './errors.ts';

/** The default ceiling on a success body: far above any answer the operator reads (a license list is a few KiB). */
export const defaultMaxResponseBytes = 4 * 1024 * 1024;
/** Error bodies are only read for their message: the first 64 KiB, the rest is dropped. */
export const errorBodyBytes = 64 * 1024;

export interface BodyLimit {
  maxBytes: number;
  /** Past the limit: 'fail' rejects with CoderResponseTooLargeError, 'truncate' keeps the first maxBytes. */
  overflow: 'fail' | 'truncate';
  label: { method: string; path: string };
}

/** The body as text, reading at most maxBytes (+ one chunk) from the socket, then cancelling the rest. */
export async function readBody(response: Response, limit: BodyLimit): Promise<string> {
  // A multi-byte character cut at the limit decodes as U+FFFD, which is fine for an excerpt.
  return new TextDecoder().decode(await readBodyBytes(response, limit));
}

/** The body's bytes, under the same ceiling as readBody. */
export async function readBodyBytes(response: Response, limit: BodyLimit): Promise<Buffer> {
  const tooLarge = () => new CoderResponseTooLargeError(limit.label.method, limit.label.path, limit.maxBytes);
  const declared = Number(response.headers.get('content-length'));
  if (limit.overflow === 'fail' && Number.isFinite(declared) && declared > limit.maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = limit.maxBytes - size;
      if (value.byteLength > room) {
        if (limit.overflow === 'fail') throw tooLarge();
        chunks.push(value.subarray(0, room));
        size += room;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks, size);
}

/** At most maxChars of text, with how much was left out: for any text of an answer put in a message or log line. */
export function excerpt(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters)`;
}
