// The errors a Coder API call ends with. None of their messages carries the session token.

/** The exact text logged and thrown when a redirect would take the token to another origin. */
export const crossOriginRedirectMessage = 'refusing redirect to a different origin than the coder URL';

export interface ValidationError {
  field: string;
  detail: string;
}

export interface CoderApiErrorInit {
  method: string;
  /** The request path, without the query. */
  path: string;
  status: number;
  statusText?: string;
  coderMessage?: string;
  detail?: string;
  validations?: ValidationError[];
  /** X-Coder-Build-Version of the answer: present when Coder itself answered, not a proxy in front of it. */
  buildVersion?: string;
  /** Retry-After of the answer, in milliseconds. */
  retryAfterMs?: number;
}

/** Coder answered with an HTTP error status; its {message, detail, validations} body is kept apart. */
export class CoderApiError extends Error {
  override name = 'CoderApiError';
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly coderMessage?: string;
  readonly detail?: string;
  readonly validations?: ValidationError[];
  readonly buildVersion?: string;
  readonly retryAfterMs?: number;

  constructor(init: CoderApiErrorInit) {
    super(describe(init));
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    if (init.coderMessage !== undefined) this.coderMessage = init.coderMessage;
    if (init.detail !== undefined) this.detail = init.detail;
    if (init.validations !== undefined) this.validations = init.validations;
    if (init.buildVersion !== undefined) this.buildVersion = init.buildVersion;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * "Coder v2.26.1 does not serve GET /api/v2/x (HTTP 405)", for an answer that isRouteNotServed: the release
 * comes from the answer's X-Coder-Build-Version when Coder sent one.
 */
export function routeNotServedMessage(err: CoderApiError): string {
  const coder = err.buildVersion ? `Coder ${err.buildVersion.replace(/\+.*$/, '')}` : 'Coder';
  return `${coder} does not serve ${err.method} ${err.path} (HTTP ${err.status}${err.status === 404 ? ' Route not found' : ' Method Not Allowed'})`;
}

/** The longest error message, whatever the answer held (it ends up in log lines and conditions). */
const maxDescriptionChars = 4_000;

function describe(init: CoderApiErrorInit): string {
  const status = init.statusText ? `${init.status} ${init.statusText}` : String(init.status);
  let text = `Coder API ${init.method} ${init.path} answered ${status}`;
  if (init.coderMessage) text += `: ${init.coderMessage}`;
  if (init.detail) text += ` (${init.detail})`;
  if (init.validations?.length) {
    text += ` [${init.validations.map((v) => `${v.field}: ${v.detail}`).join('; ')}]`;
  }
  return text.length > maxDescriptionChars ? `${text.slice(0, maxDescriptionChars)}…` : text;
}

/** The call did not finish within the client's timeout (retries included). */
export class CoderTimeoutError extends Error {
  override name = 'CoderTimeoutError';
  readonly method: string;
  readonly path: string;
  readonly timeoutMs: number;

  constructor(method: string, path: string, timeoutMs: number) {
    super(`Coder API ${method} ${path} did not finish within ${timeoutMs} ms`);
    this.method = method;
    this.path = path;
    this.timeoutMs = timeoutMs;
  }
}

/** No HTTP answer: the connection failed or broke (DNS, refused, reset). */
export class CoderNetworkError extends Error {
  override name = 'CoderNetworkError';
  readonly method: string;
  readonly path: string;

  constructor(method: string, path: string, cause: unknown) {
    super(`Coder API ${method} ${path} failed: ${networkReason(cause)}`, { cause });
    this.method = method;
    this.path = path;
  }
}

/** fetch's own messages that are fixed text; any other may quote the request. */
const fixedFetchMessages = new Set(['fetch failed', 'terminated']);

/** Said of a failure without a socket error code, in place of a message that may quote the request. */
const noSocketErrorReason =
  "the request failed without a socket error code (fetch's message is not shown: it may quote a request header, such as the session token)";

function networkReason(cause: unknown): string {
  // fetch wraps the socket error: TypeError('fetch failed') with cause {code: 'ECONNREFUSED', ...}.
  const inner = (cause as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof inner?.code === 'string' && inner.code) return inner.code;
  // Without one, the message is fetch's, or an inner error's, and may quote what fetch refused to send:
  // undici's `Headers.append: "<value>" is an invalid header value.` holds a whole header value.
  if (inner === undefined && cause instanceof Error && fixedFetchMessages.has(cause.message)) return cause.message;
  return noSocketErrorReason;
}

/**
 * The session token has a character outside visible ASCII, which no Coder session token has: the client
 * refuses it before any request, as fetch would refuse the header (quoting it in its error). The message
 * never holds the value.
 */
export class InvalidCoderTokenError extends Error {
  override name = 'InvalidCoderTokenError';

  constructor() {
    super(
      'the Coder session token contains a space, line break, control character or non-ASCII character, and a Coder session ' +
        'token has none: store the token alone, on one line, exactly as Coder printed it',
    );
  }
}

/** A redirect pointed at another scheme, host or port; it was not followed and nothing was sent there. */
export class CrossOriginRedirectError extends Error {
  override name = 'CrossOriginRedirectError';
  readonly from: string;
  readonly to: string;
  readonly status: number;

  /** `from` and `to` are origins (scheme://host:port) without credentials, path or query. */
  constructor(from: string, to: string, status: number) {
    super(crossOriginRedirectMessage);
    this.from = from;
    this.to = to;
    this.status = status;
  }
}

/** The redirect chain was longer than the client follows. */
export class TooManyRedirectsError extends Error {
  override name = 'TooManyRedirectsError';
  readonly method: string;
  readonly path: string;
  readonly limit: number;

  constructor(method: string, path: string, limit: number) {
    super(`Coder API ${method} ${path} redirected more than ${limit} times`);
    this.method = method;
    this.path = path;
    this.limit = limit;
  }
}

/** The answer's body was larger than the client reads; it was not buffered past the limit. */
export class CoderResponseTooLargeError extends Error {
  override name = 'CoderResponseTooLargeError';
  readonly method: string;
  readonly path: string;
  readonly limitBytes: number;

  constructor(method: string, path: string, limitBytes: number) {
    super(`Coder API ${method} ${path} answered with a body larger than the limit of ${limitBytes} bytes; the call failed`);
    this.method = method;
    this.path = path;
    this.limitBytes = limitBytes;
  }
}
