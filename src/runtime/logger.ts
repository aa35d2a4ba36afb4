// JSON logging with pino, redacted by construction: sensitive keys are censored by path, and every
// line is scrubbed once more as a whole just before it is written, whatever logged it.
import pino from 'pino';
import { censor, redactDeep, scrubSecrets } from './redaction.ts';

export { scrubSecrets } from './redaction.ts';

export type Logger = pino.Logger;

export interface LoggerOptions {
  level: string;
  /** Defaults to stdout. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const settings: pino.LoggerOptions = {
    level: options.level,
    redact: { paths: redactPaths(), censor },
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    formatters: { level: (label) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: { streamWrite: scrubLine, logMethod: withoutTopLevelBytes },
  };
  return options.destination ? pino(settings, options.destination as pino.DestinationStream) : pino(settings);
}

/** The logger of one reconcile: every line carries which object and which attempt it is about. */
export function reconcileLogger(
  base: Logger,
  fields: { controller: string; namespace: string; name: string; reconcileID: string },
): Logger {
  return base.child(fields);
}

// pino's paths are exact-case and cost time per wildcard level, so they cover the usual spellings near
// the top; scrubLine censors every sensitive key (sensitiveKeys) in any case at any depth.
const redactedKeys = [
  'token',
  'password',
  'authorization',
  'Authorization',
  'coder-session-token',
  'Coder-Session-Token',
  'data',
  'stringData',
  'connectionURL',
];
const maxRedactDepth = 2;
function redactPaths(): string[] {
  const paths: string[] = [];
  for (const key of redactedKeys) {
    const plain = /^[A-Za-z_$][\w$]*$/.test(key);
    for (let depth = 0; depth <= maxRedactDepth; depth++) {
      const wildcards = Array<string>(depth).fill('*').join('.');
      if (plain) paths.push(wildcards ? `${wildcards}.${key}` : key);
      else paths.push(`${wildcards}["${key}"]`);
    }
  }
  return paths;
}

/**
 * pino spreads a Buffer passed as the first argument into one key per byte (the bytes readable in the
 * line): log its length instead.
 */
function withoutTopLevelBytes(this: pino.Logger, args: Parameters<pino.LogFn>, method: pino.LogFn): void {
  const [first, ...rest] = args as unknown[];
  if (ArrayBuffer.isView(first)) {
    (method as (...a: unknown[]) => void).apply(this, [{ bytes: `${censor} (${first.byteLength} bytes)` }, ...rest]);
    return;
  }
  (method as (...a: unknown[]) => void).apply(this, args);
}

/** Bindings, messages, error stacks and values at any depth all pass through here as one JSON line. */
function scrubLine(line: string): string {
  const body = line.endsWith('\n') ? line.slice(0, -1) : line;
  try {
    return `${JSON.stringify(redactDeep(JSON.parse(body)))}\n`;
  } catch {
    // Not JSON (cannot happen with pino's own serializer); still never print a secret.
    return `${JSON.stringify({ level: 'error', msg: scrubSecrets(body) })}\n`;
  }
}
