// Reading a manifest file or standard input with a ceiling, so that a huge input is refused after
// reading at most the ceiling instead of being held in memory whole.
import { closeSync, openSync, readSync } from 'node:fs';

export class InputTooLarge extends Error {}

/** The UTF-8 text of `path` ('-' for standard input), or InputTooLarge once more than `maxBytes` arrive. */
export function readBounded(path: string, maxBytes: number): string {
  const fd = path === '-' ? 0 : openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (err) {
        // Standard input may be non-blocking; wait a moment and read again.
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          continue;
        }
        throw err;
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new InputTooLarge(`is larger than ${maxBytes / (1024 * 1024)} MiB; split it into several files`);
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}
