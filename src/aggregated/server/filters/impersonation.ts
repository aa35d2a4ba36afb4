// Impersonation is not served here: a request that carries an Impersonate-* header is refused with 403.
// kube-apiserver resolves these headers (authorizing `impersonate`, k8s.io/apiserver pkg/endpoints/filters/
// impersonation.go) and removes them before it forwards a request as the impersonated user, so only a caller
// that reaches this server directly sends them; serving that request as the caller would ignore them silently.
import type { IncomingMessage } from 'node:http';
import { forbidden } from '../../status.ts';

/** The headers kube-apiserver reads for impersonation, lowercased as Node gives them. */
const impersonationHeaders = ['impersonate-user', 'impersonate-group', 'impersonate-uid'];
const extraPrefix = 'impersonate-extra-';

/** Throws 403 when `req` asks to impersonate anyone, naming the header and the way that serves it. */
export function refuseImpersonation(req: IncomingMessage): void {
  const header = Object.keys(req.headersDistinct).find((name) => impersonationHeaders.includes(name) || name.startsWith(extraPrefix));
  if (header === undefined) return;
  const sent = header.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
  throw forbidden(
    `impersonation (${sent}) is not served by the aggregated API server on a direct request; send the request through kube-apiserver, which authorizes the impersonation and forwards it as the impersonated user`,
  );
}
