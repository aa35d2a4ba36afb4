// A logger made by createLogger whose destination is kept in memory, so a test reads the lines as written.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/runtime/logger.ts';

export interface CapturedLog {
  log: Logger;
  /** Everything written so far, exactly as the destination received it. */
  output: () => string;
  /** Each line parsed as JSON. */
  lines: () => Record<string, unknown>[];
}

export function capturedLog(level = 'info'): CapturedLog {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const log = createLogger({ level, destination });
  const output = () => chunks.join('');
  return {
    log,
    output,
    lines: () =>
      output()
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
