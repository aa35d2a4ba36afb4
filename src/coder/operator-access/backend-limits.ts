// Limits on what a PostgreSQL server may send the operator. pg buffers each backend message whole before
// parsing it, so a server that announces a 256 MiB message grows the operator past its memory limit. The
// meter sits between the socket (plain or TLS) and pg's protocol parser, and the connection is refused
// when pg's internals no longer let it sit there.
import type pg from 'pg';
import { OperatorAccessError } from './errors.ts';

export interface BackendLimits {
  /** The longest backend message, its type byte and length field included. */
  messageBytes: number;
  /** Everything the server may send on one connection after the TLS negotiation. */
  connectionBytes: number;
}

/** The bootstrap's replies are a few rows of a few columns: kilobytes. */
export const backendLimits: BackendLimits = { messageBytes: 1024 * 1024, connectionBytes: 4 * 1024 * 1024 };

export type BackendLimitBreach = 'message' | 'connection' | 'malformed';

/** The server went past a limit; the socket was destroyed with this error before pg's parser saw the bytes. */
export class BackendLimitExceeded extends Error {
  override readonly name = 'BackendLimitExceeded';
  readonly breach: BackendLimitBreach;
  readonly limitBytes: number;

  constructor(breach: BackendLimitBreach, limitBytes: number) {
    super(
      breach === 'message'
        ? `a backend message is longer than ${limitBytes} bytes`
        : breach === 'connection'
          ? `the server sent more than ${limitBytes} bytes on one connection`
          : 'a backend message has a length shorter than its own length field',
    );
    this.breach = breach;
    this.limitBytes = limitBytes;
  }
}

const headerBytes = 5;

/**
 * Follows the framing of the backend stream chunk by chunk (a type byte, then a 4-byte length that counts
 * itself but not the type byte, then the body), holding only the header bytes of the message under way.
 */
export class BackendMessageMeter {
  private readonly limits: BackendLimits;
  private total = 0;
  private readonly header = Buffer.alloc(headerBytes);
  private headerFilled = 0;
  private bodyLeft = 0;
  private breached: BackendLimitExceeded | undefined;

  constructor(limits: BackendLimits = backendLimits) {
    this.limits = limits;
  }

  /** The limit this chunk breaks, if any; once broken, every later chunk breaks it too. */
  check(chunk: Buffer): BackendLimitExceeded | undefined {
    if (this.breached) return this.breached;
    this.total += chunk.length;
    if (this.total > this.limits.connectionBytes)
      return (this.breached = new BackendLimitExceeded('connection', this.limits.connectionBytes));
    let at = 0;
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const skipped = Math.min(this.bodyLeft, chunk.length - at);
        this.bodyLeft -= skipped;
        at += skipped;
        continue;
      }
      const copied = chunk.copy(this.header, this.headerFilled, at, Math.min(chunk.length, at + headerBytes - this.headerFilled));
      this.headerFilled += copied;
      at += copied;
      if (this.headerFilled < headerBytes) break;
      this.headerFilled = 0;
      const length = this.header.readUInt32BE(1);
      if (length < 4) return (this.breached = new BackendLimitExceeded('malformed', 4));
      if (1 + length > this.limits.messageBytes) return (this.breached = new BackendLimitExceeded('message', this.limits.messageBytes));
      this.bodyLeft = length - 4;
    }
    return undefined;
  }
}

/** The parts of pg's Connection (pg/lib/connection.js) the meter is installed through. */
interface PgConnection {
  stream?: unknown;
  attachListeners?: unknown;
  connect?: unknown;
  upgradeToSSL?: unknown;
}

interface Socket {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  destroy(err?: Error): unknown;
}

function isSocket(value: unknown): value is Socket {
  const s = value as Partial<Socket> | null;
  return typeof s?.on === 'function' && typeof s.destroy === 'function';
}

const cannotLimit =
  'the installed pg package no longer hands its socket to the protocol parser through Connection#attachListeners, ' +
  'so the operator cannot limit the size of what PostgreSQL sends; it does not connect without that limit';

export function limitUnavailable(): OperatorAccessError {
  return new OperatorAccessError('Failed', cannotLimit);
}

/** Where pg calls attachListeners: every path that hands the socket to the parser must go through it. */
function namesAttachListeners(method: unknown): boolean {
  return typeof method === 'function' && /\.attachListeners\(/.test(Function.prototype.toString.call(method));
}

export interface BackendLimitHook {
  /** True once the meter stands in front of pg's parser; checked again when the connection is ready. */
  installed(): boolean;
}

/**
 * Puts a BackendMessageMeter in front of pg's parser on this client's connection, for the plain socket
 * and for the TLS socket pg makes after an SSLRequest alike. A chunk that breaks a limit is never handed to
 * the parser: the socket is destroyed with BackendLimitExceeded, which pg reports to the call in flight.
 * Throws limitUnavailable() when pg's Connection lacks the seam this relies on.
 */
export function limitBackendMessages(client: pg.Client, limits: BackendLimits = backendLimits): BackendLimitHook {
  const connection = (client as unknown as { connection?: PgConnection }).connection;
  const socket = connection?.stream;
  const attach = connection?.attachListeners;
  if (
    !connection ||
    !isSocket(socket) ||
    typeof attach !== 'function' ||
    !namesAttachListeners(connection.connect) ||
    !namesAttachListeners(connection.upgradeToSSL)
  ) {
    throw limitUnavailable();
  }
  let installed = false;
  connection.attachListeners = function (this: unknown, stream: unknown): void {
    const fail = (err: Error) => {
      if (isSocket(stream)) stream.destroy(err);
      socket.destroy(err);
    };
    if (!isSocket(stream)) return fail(limitUnavailable());
    const meter = new BackendMessageMeter(limits);
    let dataListeners = 0;
    const metered: Socket = new Proxy(stream, {
      get(target, property) {
        if (property === 'on' || property === 'addListener') {
          return (event: string, listener: (...args: unknown[]) => void) => {
            if (event !== 'data') {
              target.on(event, listener);
              return metered;
            }
            dataListeners++;
            target.on('data', (chunk: unknown) => {
              const breach = Buffer.isBuffer(chunk) ? meter.check(chunk) : new BackendLimitExceeded('malformed', 0);
              if (breach) fail(breach);
              else listener(chunk);
            });
            return metered;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    try {
      attach.call(this, metered);
    } catch {
      return fail(limitUnavailable());
    }
    // A parser that took its data some other way (once, pipe, read) would read around the meter.
    if (dataListeners !== 1) return fail(limitUnavailable());
    installed = true;
  };
  return { installed: () => installed };
}
