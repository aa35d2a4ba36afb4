// The database URL, parsed here into the config object pg is given, so that pg never parses it: pg's
// own parser reads whatever file sslrootcert, sslcert or sslkey names, synchronously and unbounded
// (/dev/zero exhausts memory, a FIFO blocks the event loop for good). No parameter of the URL makes the
// operator open a file; one that would is refused by its name, and no value is ever quoted back.
import type { ConnectionOptions } from 'node:tls';
import { OperatorAccessError } from './errors.ts';

export interface DatabaseEndpoint {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string | undefined;
  /** false for no TLS, true or options for TLS; undefined leaves it to pg's default (no TLS). */
  ssl: boolean | ConnectionOptions | undefined;
  /** libpq's `options` (for example `-c search_path=coder`), sent to the server as a startup parameter. */
  options?: string;
  sslnegotiation?: 'postgres' | 'direct';
}

/**
 * Parameters that name a file on the operator's disk (libpq's, and pg's too for the first three).
 * With sslinline=true (as lib/pq reads it, which Coder uses) the first three hold PEM text instead.
 */
const inlineCapable = ['sslrootcert', 'sslcert', 'sslkey'] as const;
const fileParameters = [...inlineCapable, 'sslcrl', 'sslcrldir', 'sslkeylogfile', 'passfile', 'service', 'servicefile'];

/** libpq's sslmode values, plus pg's no-verify. */
const sslModes = new Set(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify']);

function invalid(message: string): OperatorAccessError {
  return new OperatorAccessError('Invalid', message);
}

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalid(`the ${what} in the database URL has an invalid percent-encoding: percent-encode it as a whole`);
  }
}

function parseURL(text: string): { url: URL; emptyHost: boolean } {
  try {
    return { url: new URL(text), emptyHost: false };
  } catch {
    // postgres://user:pass@/db (no host) is libpq's "default host"; WHATWG URL refuses it as written.
    try {
      return { url: new URL(text.replace('@/', '@placeholder.invalid/')), emptyHost: true };
    } catch {
      throw invalid('the database URL cannot be parsed: check that it is a postgres:// URL with a percent-encoded user name and password');
    }
  }
}

/** Parses a postgres:// or postgresql:// URL; throws OperatorAccessError('Invalid') naming what is wrong. */
export function parseDatabaseURL(postgresURL: string | undefined): DatabaseEndpoint {
  const text = (postgresURL ?? '').trim();
  if (text === '') throw invalid('the database URL is empty: set it in the database Secret');
  const { url, emptyHost } = parseURL(text);
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw invalid('the database URL does not start with postgres:// or postgresql://');
  }
  // The last value of a repeated parameter wins, as in pg and libpq.
  const params = new Map(url.searchParams.entries());
  const inline = params.get('sslinline') === 'true';
  for (const name of fileParameters) {
    if (!params.has(name) || (inline && (inlineCapable as readonly string[]).includes(name))) continue;
    throw invalid(
      `the database URL sets the parameter ${name}, which names a file: the operator never reads a file named by a database URL. ` +
        ((inlineCapable as readonly string[]).includes(name)
          ? `Put the PEM text itself in ${name} and add sslinline=true (Coder's driver, lib/pq, reads it the same way), ` +
            'or remove the parameter'
          : 'Remove the parameter from the URL'),
    );
  }

  const hostParam = params.get('host');
  const host = hostParam ?? (emptyHost ? '' : decode(url.hostname.replace(/^\[(.+)\]$/, '$1'), 'host'));
  if (host.startsWith('/') || /^%2f/i.test(url.hostname)) {
    throw invalid('the database URL names a Unix socket (parameter host): the operator connects to PostgreSQL over TCP only');
  }
  const portText = params.get('port') ?? url.port;
  const port = portText === '' ? 5432 : Number(portText);
  if (!/^\d{1,5}$/.test(portText === '' ? '5432' : portText) || port < 1 || port > 65535) {
    throw invalid('the port in the database URL (parameter port) is not a number from 1 to 65535');
  }
  const database = url.pathname.length > 1 ? decode(url.pathname.slice(1), 'database name') : undefined;
  const endpoint: DatabaseEndpoint = {
    host: host === '' ? 'localhost' : host,
    port,
    user: params.get('user') || decode(url.username, 'user name'),
    password: params.get('password') || decode(url.password, 'password'),
    database,
    ssl: sslOptions(params, inline),
  };
  const options = params.get('options');
  if (options !== undefined) endpoint.options = options;
  const negotiation = params.get('sslnegotiation');
  if (negotiation !== undefined) {
    if (negotiation !== 'postgres' && negotiation !== 'direct') {
      throw invalid('the parameter sslnegotiation of the database URL must be postgres or direct');
    }
    endpoint.sslnegotiation = negotiation;
    if (negotiation === 'direct' && endpoint.ssl === undefined) endpoint.ssl = true;
  }
  return endpoint;
}

/**
 * TLS as pg has read these URLs so far: any sslmode but disable means TLS with the server's certificate
 * verified against the system's CAs (or the inline sslrootcert) and its name checked; no-verify turns
 * the check off. uselibpqcompat=true gives libpq's weaker meanings of prefer, require and verify-ca.
 */
function sslOptions(params: Map<string, string>, inline: boolean): DatabaseEndpoint['ssl'] {
  const mode = params.get('sslmode');
  if (mode !== undefined && !sslModes.has(mode)) {
    throw invalid(`the parameter sslmode of the database URL must be one of ${[...sslModes].join(', ')}`);
  }
  let ssl: DatabaseEndpoint['ssl'];
  const flag = params.get('ssl');
  if (flag === 'true' || flag === '1') ssl = true;
  else if (flag === '0' || flag === 'false') ssl = false;
  else if (flag === 'no-verify') ssl = { rejectUnauthorized: false };
  const pem: ConnectionOptions = {};
  if (inline) {
    if (params.has('sslrootcert')) pem.ca = params.get('sslrootcert')!;
    if (params.has('sslcert')) pem.cert = params.get('sslcert')!;
    if (params.has('sslkey')) pem.key = params.get('sslkey')!;
  }
  if (mode === undefined && Object.keys(pem).length === 0) return ssl;
  if (mode === 'disable') return false;
  const options: ConnectionOptions = { ...pem };
  const libpq = params.get('uselibpqcompat') === 'true';
  if (mode === 'no-verify' || (libpq && (mode === 'prefer' || mode === 'allow'))) options.rejectUnauthorized = false;
  if (libpq && mode === 'require') {
    if (options.ca === undefined) options.rejectUnauthorized = false;
    else options.checkServerIdentity = () => undefined;
  }
  if (libpq && mode === 'verify-ca') {
    if (options.ca === undefined) {
      throw invalid('sslmode=verify-ca with uselibpqcompat=true needs the CA: give it inline in sslrootcert with sslinline=true');
    }
    options.checkServerIdentity = () => undefined;
  }
  return options;
}
