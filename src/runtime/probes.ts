// The /healthz and /readyz endpoints for the kubelet's liveness and readiness probes.
import { requestPath, sendText, serveHttp, type HttpEndpoint } from './http-endpoint.ts';
import { scrubSecrets } from './redaction.ts';

export type ProbeResult = { ok: true } | { ok: false; reasons: string[] };

export interface ProbeChecks {
  healthz: () => ProbeResult;
  readyz: () => ProbeResult;
}

/**
 * Answers GET /healthz and /readyz with 200 "ok", or 503 with one reason per line. With `?verbose` the
 * body lists the outcome as kube-apiserver does ("[+]readyz ok" or "[-]<reason>" lines, then a summary).
 * "0" disables the server (undefined).
 */
export function startProbeServer(address: string, checks: ProbeChecks): Promise<HttpEndpoint | undefined> {
  return serveHttp(address, (request, response) => {
    const path = requestPath(request);
    const name = path === '/healthz' ? 'healthz' : path === '/readyz' ? 'readyz' : undefined;
    if (name === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) {
      sendText(response, 404, '404 page not found\n');
      return;
    }
    const result = runCheck(checks[name]);
    const verbose = new URLSearchParams((request.url ?? '').split('?')[1] ?? '').has('verbose');
    sendText(response, result.ok ? 200 : 503, verbose ? verboseBody(name, result) : plainBody(result));
  });
}

function runCheck(check: () => ProbeResult): ProbeResult {
  try {
    const result = check();
    if (result.ok) return result;
    return { ok: false, reasons: result.reasons.length > 0 ? result.reasons : ['check failed'] };
  } catch (err) {
    return { ok: false, reasons: [`check threw: ${err instanceof Error ? err.message : String(err)}`] };
  }
}

function plainBody(result: ProbeResult): string {
  return result.ok ? 'ok' : `${result.reasons.map(oneLine).join('\n')}\n`;
}

function verboseBody(name: string, result: ProbeResult): string {
  if (result.ok) return `[+]${name} ok\n${name} check passed\n`;
  return `${result.reasons.map((reason) => `[-]${oneLine(reason)}\n`).join('')}${name} check failed\n`;
}

/** A reason may carry an API server's message; keep one reason per line and no secret in it. */
function oneLine(reason: string): string {
  return scrubSecrets(reason).replace(/\s*[\r\n]+\s*/g, ' ');
}
