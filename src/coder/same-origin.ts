// The origin rule that keeps the operator token on the Coder URL it was meant for: a redirect or a
// websocket is followed only to the same scheme, host and port.

const defaultPorts: Readonly<Record<string, string>> = {
  'http:': '80',
  'https:': '443',
  'ws:': '80',
  'wss:': '443',
};

/** The port a URL connects to: its explicit port, else its scheme's default ('' when none is known). */
export function effectivePort(url: URL): string {
  return url.port || defaultPorts[url.protocol] || '';
}

/**
 * Whether two URLs have exactly the same scheme, host and port. A scheme's default port counts as equal
 * to the same port written out (http://coder and http://coder:80). Paths, queries and credentials do
 * not matter; host names compare without case, but nothing else is normalised (no DNS, no trailing dot).
 */
export function sameOrigin(a: URL, b: URL): boolean {
  return (
    a.protocol.toLowerCase() === b.protocol.toLowerCase() &&
    a.hostname.toLowerCase() === b.hostname.toLowerCase() &&
    effectivePort(a) === effectivePort(b)
  );
}

/** scheme://host[:port] of a URL, never with its credentials, path or query: safe to log. */
export function originOf(url: URL): string {
  return `${url.protocol}//${url.host}`;
}
