// fetch that follows redirects itself, and only within the origin it was called on, so the session
// token is never sent anywhere else: not on a redirect, and not on a first request either.
import { CrossOriginRedirectError, TooManyRedirectsError } from './errors.ts';
import { originOf, sameOrigin } from './same-origin.ts';

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

export interface OriginBoundRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Redirects followed at most; one more fails the call. */
  maxRedirects: number;
  /** Called before a cross-origin redirect is thrown, so the refusal is logged where it happens. */
  onRefused?: (err: CrossOriginRedirectError) => void;
  /** For the error messages: the method and path the caller asked for. */
  label: { method: string; path: string };
}

/**
 * Sends the request to `url` and follows redirects whose Location has the same scheme, host and port
 * as `url`; returns the first answer that is not a redirect (its body unread). A redirect elsewhere
 * throws CrossOriginRedirectError without contacting the other origin.
 */
export async function fetchWithinOrigin(url: URL, request: OriginBoundRequest): Promise<Response> {
  const origin = new URL(url);
  let current = new URL(url);
  let method = request.method.toUpperCase();
  let body = request.body;
  const headers = { ...request.headers };

  for (let followed = 0; ; followed++) {
    if (!sameOrigin(origin, current)) refuse(origin, current, 0, request);
    const response = await fetch(current, {
      method,
      headers,
      body: body as RequestInit['body'],
      redirect: 'manual',
      signal: request.signal,
    });
    const location = response.headers.get('location');
    if (!redirectStatuses.has(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => {});

    let target: URL;
    try {
      target = new URL(location, current);
    } catch {
      throw new Error(`Coder API ${request.label.method} ${request.label.path} answered ${response.status} with an unreadable Location`);
    }
    if (!sameOrigin(origin, target)) refuse(origin, target, response.status, request);
    if (followed >= request.maxRedirects) {
      throw new TooManyRedirectsError(request.label.method, request.label.path, request.maxRedirects);
    }
    // As browsers and Go do: 303 turns anything but HEAD into GET, and 301/302 turn POST into GET;
    // 307 and 308 repeat the method and body.
    const status = response.status;
    if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      for (const name of Object.keys(headers)) {
        if (name.toLowerCase() === 'content-type') delete headers[name];
      }
    }
    target.username = '';
    target.password = '';
    current = target;
  }
}

function refuse(origin: URL, target: URL, status: number, request: OriginBoundRequest): never {
  const err = new CrossOriginRedirectError(originOf(origin), originOf(target), status);
  request.onRefused?.(err);
  throw err;
}
