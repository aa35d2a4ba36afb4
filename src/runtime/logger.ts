// JSON logging with pino, redacted by construction and never throwing: what a log call is given is
// first copied into plain JSON (loggableValue), and every line is redacted as a whole just before it
// is written (redactLogValue), whatever logged it.
import pino from 'pino';
import { loggableValue } from './loggable-value.ts';
import { redactLogValue, scrubLogText } from './log-redaction.ts';

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
    // loggableValue has already turned every Error into pino's error shape; serializing that again
    // would give it the type "Object".
    serializers: { err: asIs, error: asIs },
    formatters: { level: (label) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: { streamWrite: redactLine, logMethod: withLoggableArguments },
  };
  const logger = options.destination ? pino(settings, options.destination as pino.DestinationStream) : pino(settings);
  return withLoggableBindings(logger);
}

/** The logger of one reconcile: every line carries which object and which attempt it is about. */
export function reconcileLogger(
  base: Logger,
  fields: { controller: string; namespace: string; name: string; reconcileID: string },
): Logger {
  return base.child(fields);
}

const asIs = (value: unknown): unknown => value;

/**
 * The arguments of a log call as plain JSON. An Error given alone becomes the `err` field (its message
 * the line's message, as pino does), and a Buffer given alone its length under `bytes`. If pino still
 * fails, the line says so instead of the call throwing into a reconcile.
 */
function withLoggableArguments(this: pino.Logger, args: Parameters<pino.LogFn>, method: pino.LogFn): void {
  const log = method as (...a: unknown[]) => void;
  try {
    log.apply(this, loggableArguments(args as unknown[]));
  } catch (err) {
    try {
      const reason = err instanceof Error ? err.message : String(err);
      log.apply(this, [{ logError: reason }, 'a log call failed; its arguments were dropped']);
    } catch {
      // Nothing is left to write with.
    }
  }
}

function loggableArguments(args: unknown[]): unknown[] {
  const [first, ...rest] = args;
  const formatArgs = rest.map((arg) => (typeof arg === 'object' || typeof arg === 'bigint' ? loggableValue(arg) : arg));
  if (first instanceof Error) {
    return [{ err: loggableValue(first) }, ...(rest.length > 0 ? formatArgs : [loggableValue(first.message)])];
  }
  if (typeof first !== 'object' || first === null) return [first, ...formatArgs];
  const fields = loggableValue(first);
  if (isRecord(fields)) return [fields, ...formatArgs];
  return [ArrayBuffer.isView(first) ? { bytes: fields } : { value: fields }, ...formatArgs];
}

/** Child loggers copy their bindings the same way; children of children inherit this child(). */
function withLoggableBindings(logger: Logger): Logger {
  type Child = (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => Logger;
  const child = logger.child as unknown as Child;
  logger.child = function loggableChild(this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    const fields = loggableValue(bindings);
    return child.call(this, isRecord(fields) ? fields : { bindings: fields }, options);
  } as unknown as typeof logger.child;
  return logger;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Bindings, messages, error stacks and values at any depth all pass through here as one JSON line. */
function redactLine(line: string): string {
  const body = line.endsWith('\n') ? line.slice(0, -1) : line;
  try {
    return `${JSON.stringify(redactLogValue(JSON.parse(body)))}\n`;
  } catch {
    // Not JSON (cannot happen with pino's own serializer); still never print a secret.
    return `${JSON.stringify({ level: 'error', msg: scrubLogText(body) })}\n`;
  }
}
